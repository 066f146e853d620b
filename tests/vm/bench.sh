# make bench-sched, in the guest: cfqx against none, mq-deadline, kyber and
# bfq on the same contended null_blk device over a matrix of scenarios.
# Prints one "BENCH|scenario|policy|scheduler|MiB/s|jain|p99_us|max_us|per-group MiB/s"
# line per run; scripts/vm/bench-report.sh turns them into the table/plot.
. /tests/lib.sh
load_modules || exit 10
insmod /lib/modules/cfqx.ko || exit 11
RT=${BENCH_RUNTIME:-3}
SCHEDS="none mq-deadline kyber bfq cfqx"
dev=$(nullb_contended nbbench) || exit 12
# cfqx settings of the bench (see README: TCG think times are milliseconds).
cfqx_setup() {
	echo $1 > $(iosched $dev group_by)
	echo ${CFQX_SLICE_IDLE:-8000} > $(iosched $dev slice_idle)
}
# Aggregate throughput: all bytes over the union of the jobs' run windows
# (separate fio processes do not start at the same instant).
total_bw() {
	for f in "$@"; do
		jq -r '.jobs[] | "\(.read.io_bytes + .write.io_bytes) \(.job_start // 0) \([.read.runtime, .write.runtime] | max) \($ts)"' \
			--argjson ts "$(jq '.timestamp_ms' $f)" $f
	done | awk '{b += $1; end = $4; st = ($2 > 0) ? $2 : end - $3;
		if (!n++ || st < s0) s0 = st; if (end > e0) e0 = end}
		END {if (e0 > s0) printf "%.0f\n", b * 1000 / (e0 - s0); else print 0}'
}
report() { # report SCENARIO POLICY SCHED JSON...
	local sc=$1 pol=$2 s=$3 bw="" f; shift 3
	for f in "$@"; do bw="$bw $(fio_bw $f)"; done
	local total=$(sum $bw)
	[ $# -gt 1 ] && total=$(total_bw "$@")
	local lat="- -"
	[ $sc = latency ] && lat=$(fio_lat $1 reader)
	set -- $lat
	echo "BENCH|$sc|$pol|$s|$(mb $total)|$(jain $bw)|$1|$2|$(for b in $bw; do printf '%s ' $(mb $b); done)"
}
# Scenarios with one fio process, groups by uid (uid= per job).
for sc in contended greedy2light2 rw seqrand; do
	fio_job $sc $dev $RT > /tmp/b.fio
	for s in $SCHEDS; do
		set_sched $dev $s; [ $s = cfqx ] && cfqx_setup uid
		run_fio b /tmp/b.fio && report $sc uid $s $FIO_OUT/b.json
		sync
	done
done
# The contended scenario with each group a separate fio process in its own
# process group (pgid) or cgroup v2 (cgroup).
fio_job contended $dev $RT > /tmp/c.fio
for pol in pgid cgroup; do
	for s in $SCHEDS; do
		set_sched $dev $s; [ $s = cfqx ] && cfqx_setup $pol
		i=0
		for sec in greedy light2 light3 light4; do
			i=$((i + 1))
			if [ $pol = pgid ]; then
				setsid fio --section=$sec --output-format=json --output=$FIO_OUT/c$i.json /tmp/c.fio >/dev/null 2>&1 &
			else
				mkdir -p /sys/fs/cgroup/cfqx-g$i
				sh -c "echo \$\$ > /sys/fs/cgroup/cfqx-g$i/cgroup.procs; exec fio --section=$sec --output-format=json --output=$FIO_OUT/c$i.json /tmp/c.fio" >/dev/null 2>&1 &
			fi
		done
		wait
		report contended $pol $s $FIO_OUT/c1.json $FIO_OUT/c2.json $FIO_OUT/c3.json $FIO_OUT/c4.json
	done
done
rmdir /sys/fs/cgroup/cfqx-g* 2>/dev/null
# Sync-read latency under an async (buffered write) flood by four groups.
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
	set_sched $dev $s; [ $s = cfqx ] && cfqx_setup uid
	run_fio l /tmp/l.fio && report latency uid $s $FIO_OUT/l.json
	sync
done
set_sched $dev none
nullb_destroy nbbench
rmmod cfqx
echo "BENCH-DONE"
