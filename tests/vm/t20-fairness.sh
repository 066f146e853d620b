# Fairness in contended mixes (tests/mixes/*.fio, the same job files the
# simulator takes), groups by uid, on the null_blk of issue 5 (200 us
# completions, depth 64) throttled to 100 MiB/s (lib.sh nullb_fair: at
# 200 MiB/s the TCG guest's CPUs, not the device, bound the one-deep
# readers, and the figures measured CFS).  Per mix: each group's demand
# is what it gets alone (under none); its fair share water-fills the
# demands within the capacity the device delivered; x = got / fair
# share (DESIGN "Measuring fairness", computed by `cfqx fairness`).  Every scheduler runs
# the mix in this same boot.  cfqx must reach max-min Jain >= 0.90, above
# every in-tree scheduler's, at >= 90% of none's throughput.  Ratios only:
# TCG time is slow and noisy, and every figure is relative to runs in the
# same boot.
. /tests/lib.sh
FAILED=0
MIXES=${FAIR_MIXES:-contended sizes uid6v1 rand32large}
SCHEDS="none mq-deadline kyber bfq cfqx"
dev=$(nullb_fair nbfair) || { notok "create null_blk"; exit 1; }
export CFQX_DEV=/dev/$dev

for mix in $MIXES; do
	fair_mix $mix $dev "$SCHEDS" > /tmp/fair-$mix.out || { notok "$mix: fio failed"; continue; }
	grep -v '^FAIR|' /tmp/fair-$mix.out
	line() { sed -n "s/^FAIR|$mix|$1|//p" /tmp/fair-$mix.out; }
	# FAIR|mix|sched|MiB/s|maxmin|worst|jain|per-group
	none_t=$(line none | cut -d'|' -f1); cfqx_t=$(line cfqx | cut -d'|' -f1)
	cfqx_mm=$(line cfqx | cut -d'|' -f2)
	best_other=0
	for s in none mq-deadline kyber bfq; do
		best_other=$(max $best_other "$(line $s | cut -d'|' -f2)")
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
