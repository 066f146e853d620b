# Fairness where it matters: the contended unequal-demand case of issue 5.
# A null_blk limited to 200 MiB/s; four groups (uids) read 64 KiB blocks:
# one keeps 16 requests outstanding (libaio), three one each (psync).
# Every scheduler runs in this same boot; none and cfqx run as three
# adjacent pairs (A B, A B, B A: timing under TCG is noisy and drifts with
# host load), and the medians are compared: cfqx must reach a median Jain
# >= 0.90 with a median pairwise throughput ratio cfqx/none >= 0.90.
. /tests/lib.sh
FAILED=0
RT=${FAIR_RUNTIME:-4}
dev=$(nullb_contended nbfair) || { notok "create null_blk"; exit 1; }
fio_job contended $dev $RT > /tmp/fair.fio
median() { echo "$@" | tr ' ' '\n' | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
printf '  %-12s %9s %9s %9s %9s %9s %6s\n' scheduler greedy light2 light3 light4 "MiB/s" jain
tn=""; jn=""; tc=""; jc=""; ratios=""; pair_none=""; pair_cfqx=""
for s in none cfqx mq-deadline kyber bfq none cfqx cfqx none; do
	set_sched $dev $s
	[ $s = cfqx ] && echo uid > $(iosched $dev group_by)
	run_fio fair-$s /tmp/fair.fio || { notok "fio under $s"; continue; }
	bw=$(fio_bw $FIO_OUT/fair-$s.json)
	total=$(sum $bw)
	j=$(jain $bw)
	case $s in
	none) tn="$tn $total"; jn="$jn $j"; pair_none=$total ;;
	cfqx) tc="$tc $total"; jc="$jc $j"; pair_cfqx=$total ;;
	esac
	if [ -n "$pair_none" ] && [ -n "$pair_cfqx" ]; then
		ratios="$ratios $(awk -v c=$pair_cfqx -v n=$pair_none 'BEGIN{printf "%.3f", c/n}')"
		pair_none=""; pair_cfqx=""
	fi
	set -- $bw
	printf '  %-12s %9s %9s %9s %9s %9s %6s\n' $s $(mb $1) $(mb $2) $(mb $3) $(mb $4) $(mb $total) $j
done
say "cfqx stats: $(tr '\n' ' ' < $(iosched $dev stats 2>/dev/null))"
total_none=$(median $tn); total_cfqx=$(median $tc); jain_cfqx=$(median $jc)
ratio=$(median $ratios)
say "medians: none $(mb $total_none) MiB/s Jain $(median $jn); cfqx $(mb $total_cfqx) MiB/s Jain $jain_cfqx;" \
	"pairwise cfqx/none throughput ratios:$ratios (median $ratio)"
check "cfqx Jain index (median) $jain_cfqx >= 0.90" awk -v j="$jain_cfqx" 'BEGIN{exit !(j >= 0.90)}'
check "cfqx throughput >= 90% of none's (median pairwise ratio $ratio)" \
	awk -v r="$ratio" 'BEGIN{exit !(r >= 0.9)}'
set_sched $dev none
nullb_destroy nbfair
exit $FAILED
