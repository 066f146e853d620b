# make bench-sched, in the guest: cfqx against none, mq-deadline, kyber and
# bfq, all in one boot.  Prints machine-readable lines that
# scripts/vm/bench-report.sh turns into tables and a plot:
#   FAIR|mix|sched|bytes/s|maxmin|worst|jain|per-group MiB/s   (fair_mix)
#   LAT|sched|p99_us|max_us   a 4 KiB psync reader under a buffered-write flood
#   IOPS|groups|sched|round|iops   per-request cost on null_blk without delay
. /tests/lib.sh
load_modules || exit 10
insmod /lib/modules/cfqx.ko || exit 11
RT=${BENCH_RUNTIME:-3}
SCHEDS="none mq-deadline kyber bfq cfqx"

# Fairness: the contended mixes of t20 (tests/mixes), groups by uid.
dev=$(nullb_contended nbbench) || exit 12
for mix in contended sizes uid6v1 rand32large; do
	fair_mix $mix $dev "$SCHEDS" || echo "bench: $mix failed"
done

# Latency: one sync reader while four uids flood the page cache.
cat > /tmp/l.fio <<JOB
[global]
filename=/dev/$dev
runtime=$RT
time_based=1
[reader]
direct=1
ioengine=psync
rw=randread
bs=4k
size=4g
uid=1005
gid=1005
JOB
for u in 1 2 3 4; do
	printf '[writer%d]\ndirect=0\nrw=write\nbs=256k\noffset=%dg\nsize=1g\nuid=100%d\ngid=100%d\n' $u $u $u $u >> /tmp/l.fio
done
for s in $SCHEDS; do
	set_sched $dev $s; [ $s = cfqx ] && echo uid > $(iosched $dev group_by)
	run_fio l /tmp/l.fio && echo "LAT|$s|$(fio_lat $FIO_OUT/l.json reader | tr ' ' '|')"
	sync
done
set_sched $dev none
nullb_destroy nbbench

# Per-request cost: null_blk completing at once (IOPS-bound: under TCG the
# guest CPU is the limit, so IOPS measure each scheduler's CPU per I/O),
# 4 KiB random reads at 32 in flight in all, 1 group or 8 (one uid each).
# Three rounds, the schedulers' order rotated each round.
dev=$(nullb_create nbiops queue_mode=2 irqmode=0 hw_queue_depth=256 \
	size=8192 blocksize=4096 memory_backed=0) || exit 13
for n in 1 8; do
	{ printf '[global]\nfilename=/dev/%s\ndirect=1\nrw=randread\nbs=4k\nsize=4g\nruntime=%s\ntime_based=1\nioengine=libaio\niodepth=%d\n' \
		$dev $RT $((32 / n))
	  i=1; while [ $i -le $n ]; do printf '[g%d]\nuid=%d\ngid=%d\n' $i $((1000 + i)) $((1000 + i)); i=$((i + 1)); done
	} > /tmp/iops.fio
	for r in 1 2 3; do
		case $r in 1) order="mq-deadline bfq cfqx" ;; 2) order="bfq cfqx mq-deadline" ;; 3) order="cfqx mq-deadline bfq" ;; esac
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
