# make bench-sched, in the guest: cfqx against none, mq-deadline, kyber and
# bfq, all in one boot.  Prints machine-readable lines that
# scripts/vm/bench-report.sh turns into tables and a plot:
#   FAIR|mix|sched|bytes/s|maxmin|worst|jain|per-group MiB/s   (fair_mix)
#   LAT|sched|p99_us|max_us   a 4 KiB psync reader under a buffered-write flood
# (The per-request cost is bench-cost.sh, in a guest of its own.)
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

rmmod cfqx
echo "BENCH-DONE"
