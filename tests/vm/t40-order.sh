# Ordering: the small backward-seek rule, on a null_blk that says it is a
# disk.  With one request at a time in the device (max_depth 1) and slow
# completions, a first read at sector A
# holds the device while four more reads queue in one group.  From the end
# of A (last = A + 8) cfqx must issue: A-56 (8 KiB... back 64 sectors,
# penalised x2 = 128, beats the forward 200), then A+208, then the far
# forward A+2000008, and only then A-40000 (back ~19.5 MiB > back_seek_max
# 16 MiB: "wrapped", waits for the next sweep although it is nearer).
# The issue order comes from the block_rq_issue tracepoint.
# The set-up is a race the guest must win (four dd's queued within A's
# 2 s): it waits for A to be in flight (not a sleep), and is retried up to
# 5 times when the four were not all queued in time; the order is then
# compared once, on a set-up that held.
. /tests/lib.sh
FAILED=0
T=/sys/kernel/tracing
[ -d $T/events/block ] || { notok "tracefs block events missing"; exit 1; }
dev=$(nullb_create nborder queue_mode=2 irqmode=2 completion_nsec=2000000000 \
	hw_queue_depth=64 size=4096 blocksize=4096 memory_backed=0) || exit 1
# The sector order is a disk's (a device without seeks serves a group in
# arrival order): cfqx reads this when it is set up.
echo 1 > /sys/block/$dev/queue/rotational
set_sched $dev cfqx
echo 1 > $(iosched $dev max_depth)
echo 0 > $(iosched $dev slice_idle)
echo 60000 > $(iosched $dev fifo_expire_sync)
echo uid > $(iosched $dev group_by)
majmin=$(cat /sys/block/$dev/dev)
devt=$(( (${majmin%:*} << 20) | ${majmin#*:} ))
echo 0 > $T/tracing_on
# No comm recording: enabling an event would also hook sched_wakeup, and
# unhooking it re-patches that hot call site; on 6.12-rt under TCG the
# patching once crashed the guest ("Oops: int3" in ttwu_do_activate, from
# tracing_stop_cmdline_record).  The test needs only the sectors.
record_cmd=$(cat $T/options/record-cmd)
echo 0 > $T/options/record-cmd
echo "dev == $devt" > $T/events/block/block_rq_issue/filter
echo 1 > $T/events/block/block_rq_issue/enable
A=1000000
rd() { dd if=/dev/$dev of=/dev/null bs=4096 count=1 iflag=direct,skip_bytes skip=$(($1 * 512)) 2>/dev/null; }
stat_is() { [ "$(awk -v k=$1 '$1 == k {print $2}' $(schedfile $dev stats))" = "$2" ]; }
try=0
queued=0
while [ $try -lt 5 ]; do
	try=$((try + 1))
	echo > $T/trace
	echo 1 > $T/tracing_on
	rd $A &
	wait_until 30 "the first read in flight" stat_is in_flight 1 || break
	for s in $((A + 2000008)) $((A - 40000)) $((A + 208)) $((A - 56)); do
		rd $s &
	done
	# All four must be queued behind A before A completes, else the
	# order proves nothing: try again.
	i=0
	while ! stat_is queued 4 && [ $i -lt 30 ]; do
		sleep 0.05; i=$((i + 1))
	done
	queued=$(awk '$1 == "queued" {print $2}' $(schedfile $dev stats))
	wait
	echo 0 > $T/tracing_on
	[ "$queued" = 4 ] && break
	say "set-up $try: only $queued of 4 reads queued while the first was in flight"
done
[ "$queued" = 4 ] || notok "set-up: the four reads never all queued behind the first in $try tries (guest too slow)"
echo 0 > $T/events/block/block_rq_issue/enable
echo $record_cmd > $T/options/record-cmd
got=$(grep block_rq_issue $T/trace | sed -n 's/.*() \([0-9]*\) + .*/\1/p' | tr '\n' ' ')
want="$A $((A - 56)) $((A + 208)) $((A + 2000008)) $((A - 40000)) "
say "issued: $got"
say "wanted: $want"
check "short backward seek first, long backward seek waits for the sweep" [ "$got" = "$want" ]
set_sched $dev none
nullb_destroy nborder
exit $FAILED
