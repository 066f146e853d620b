# Fairness in contended mixes (tests/mixes/*.fio, the same job files the
# simulator takes), groups by uid, on the null_blk of issue 5 (200 MiB/s,
# 200 us completions, depth 64).  Per mix: each group's demand is what it
# gets alone (under none); its fair share water-fills the demands within
# the capacity the device delivered; x = got / fair share (DESIGN
# "Measuring fairness", computed by `cfqx fairness`).  Every scheduler runs
# the mix in this same boot.  cfqx must reach max-min Jain >= 0.90, above
# every in-tree scheduler's, at >= 90% of none's throughput.  Ratios only:
# TCG time is slow and noisy, and every figure is relative to runs in the
# same boot.
. /tests/lib.sh
FAILED=0
MIXES=${FAIR_MIXES:-contended sizes uid6v1 rand32large}
SCHEDS="none mq-deadline kyber bfq cfqx"
dev=$(nullb_contended nbfair) || { notok "create null_blk"; exit 1; }
export CFQX_DEV=/dev/$dev

# group_bw JSON: "uid bytes/s" per group (jobs of one uid summed), by uid.
group_bw() {
	jq -r '[.jobs[] | {u: .["job options"].uid, b: (.read.bw_bytes + .write.bw_bytes)}]
		| group_by(.u) | .[] | "\(.[0].u) \(map(.b) | add)"' "$1"
}
for mix in $MIXES; do
	job=/tests/mixes/$mix.fio
	uids=$(sed -n 's/^uid=//p' $job | sort -un)
	set_sched $dev none
	demand=""
	for u in $uids; do
		run_fio solo-$mix-$u "$job" $(job_sections $job uid=$u) || { notok "$mix: fio solo uid $u"; continue 2; }
		demand="$demand $(group_bw $FIO_OUT/solo-$mix-$u.json | awk '{print $2}')"
	done
	cap=0; res=""
	for s in $SCHEDS; do
		set_sched $dev $s
		[ $s = cfqx ] && echo uid > $(iosched $dev group_by)
		run_fio $mix-$s "$job" || { notok "$mix: fio under $s"; continue 2; }
		got=$(group_bw $FIO_OUT/$mix-$s.json | awk '{print $2}' | tr '\n' ' ')
		res="$res$s:$got;"
		t=$(sum $got); [ "$t" -gt "$cap" ] && cap=$t
	done
	say "$mix: demands (MiB/s):$(for d in $demand; do printf ' %s' $(mb $d); done), capacity $(mb $cap)"
	printf '  %-12s %8s %7s %6s %6s  %s\n' scheduler MiB/s maxmin worst jain "per-group MiB/s"
	best_other=0; cfqx_mm=0; none_t=0; cfqx_t=0
	for s in $SCHEDS; do
		got=$(echo "$res" | tr ';' '\n' | sed -n "s/^$s://p")
		f=$(fairness $cap "$demand" "$got")
		[ -n "$f" ] || { notok "$mix: cfqx fairness failed for $s"; f="0 0 0"; }
		set -- $f
		mm=$1 worst=$2 j=$3
		t=$(sum $got)
		printf '  %-12s %8s %7s %6s %6s  %s\n' $s $(mb $t) $mm $worst $j \
			"$(for g in $got; do printf '%s ' $(mb $g); done)"
		echo "FAIR|$mix|$s|$(mb $t)|$mm|$worst|$j|$(for g in $got; do printf '%s ' $(mb $g); done)"
		case $s in
		none) none_t=$t; best_other=$(max $best_other $mm) ;;
		cfqx) cfqx_t=$t; cfqx_mm=$mm ;;
		*) best_other=$(max $best_other $mm) ;;
		esac
	done
	ratio=$(awk -v c=$cfqx_t -v n=$none_t 'BEGIN{printf "%.3f", n ? c / n : 0}')
	check "$mix: cfqx max-min Jain $cfqx_mm >= 0.90" awk -v j=$cfqx_mm 'BEGIN{exit !(j >= 0.90)}'
	check "$mix: cfqx max-min Jain $cfqx_mm above every in-tree scheduler's (best $best_other)" \
		awk -v j=$cfqx_mm -v o=$best_other 'BEGIN{exit !(j > o)}'
	check "$mix: cfqx throughput >= 90% of none's (ratio $ratio)" awk -v r=$ratio 'BEGIN{exit !(r >= 0.90)}'
done
set_sched $dev cfqx
say "cfqx stats: $(tr '\n' ' ' < $(schedfile $dev stats))"
set_sched $dev none
nullb_destroy nbfair
exit $FAILED
