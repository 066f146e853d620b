# make bench-sched, second guest: the per-request cost of cfqx against
# none, mq-deadline and bfq.  The guest runs instruction-timed (QEMU
# -icount shift=0, one vCPU: scripts/vm/run.sh, suite "cost"): its clock
# advances one ns per instruction executed, so on a null_blk that
# completes at once (IOPS-bound: the CPU is the limit) fio's IOPS are
# 10^9 / instructions per I/O, the same on a busy host as on an idle one
# and from one run to the next.  What it does not see: cache misses,
# lock contention between CPUs.  4 KiB random reads, 32 in flight in all,
# 1 group or 8 (one uid each), two rounds in opposite orders (the second
# shows the figure repeats).  Prints, for scripts/vm/bench-report.sh:
#   IOPS|groups|sched|round|iops
. /tests/lib.sh
load_modules || exit 10
insmod /lib/modules/cfqx.ko || exit 11
RT=${BENCH_COST_RUNTIME:-1}
dev=$(nullb_create nbiops queue_mode=2 irqmode=0 hw_queue_depth=256 \
	size=8192 blocksize=4096 memory_backed=0) || exit 13
for n in 1 8; do
	{ printf '[global]\nfilename=/dev/%s\ndirect=1\nrw=randread\nbs=4k\nsize=4g\nruntime=%s\ntime_based=1\nioengine=libaio\niodepth=%d\n' \
		$dev $RT $((32 / n))
	  i=1; while [ $i -le $n ]; do printf '[g%d]\nuid=%d\ngid=%d\n' $i $((1000 + i)) $((1000 + i)); i=$((i + 1)); done
	} > /tmp/iops.fio
	for r in 1 2; do
		case $r in 1) order="none mq-deadline bfq cfqx" ;; 2) order="cfqx bfq mq-deadline none" ;; esac
		for s in $order; do
			set_sched $dev $s; [ $s = cfqx ] && echo uid > $(iosched $dev group_by)
			run_fio iops /tmp/iops.fio &&
				echo "IOPS|$n|$s|$r|$(jq '[.jobs[].read.iops] | add | floor' $FIO_OUT/iops.json)"
		done
	done
done
set_sched $dev none
nullb_destroy nbiops
rmmod cfqx
echo "BENCH-DONE"
