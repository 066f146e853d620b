# Ordering: the small backward-seek rule.  With one request at a time in
# the device (max_depth 1) and slow completions, a first read at sector A
# holds the device while four more reads queue in one group.  From the end
# of A (last = A + 8) cfqx must issue: A-56 (8 KiB... back 64 sectors,
# penalised x2 = 128, beats the forward 200), then A+208, then the far
# forward A+2000008, and only then A-40000 (back ~19.5 MiB > back_seek_max
# 16 MiB: "wrapped", waits for the next sweep although it is nearer).
# The issue order comes from the block_rq_issue tracepoint.
. /tests/lib.sh
FAILED=0
T=/sys/kernel/tracing
[ -d $T/events/block ] || { notok "tracefs block events missing"; exit 1; }
dev=$(nullb_create nborder queue_mode=2 irqmode=2 completion_nsec=2000000000 \
	hw_queue_depth=64 size=4096 blocksize=4096 memory_backed=0) || exit 1
set_sched $dev cfqx
echo 1 > $(iosched $dev max_depth)
echo 0 > $(iosched $dev slice_idle)
echo 60000 > $(iosched $dev fifo_expire_sync)
echo uid > $(iosched $dev group_by)
majmin=$(cat /sys/block/$dev/dev)
devt=$(( (${majmin%:*} << 20) | ${majmin#*:} ))
echo 0 > $T/tracing_on
echo > $T/trace
echo "dev == $devt" > $T/events/block/block_rq_issue/filter
echo 1 > $T/events/block/block_rq_issue/enable
echo 1 > $T/tracing_on
A=1000000
rd() { dd if=/dev/$dev of=/dev/null bs=4096 count=1 iflag=direct,skip_bytes skip=$(($1 * 512)) 2>/dev/null; }
rd $A &
sleep 0.1
for s in $((A + 2000008)) $((A - 40000)) $((A + 208)) $((A - 56)); do
	rd $s &
done
# All four must be queued behind A before A completes, else the order
# proves nothing: say so instead of comparing.
i=0
while [ "$(awk '/^queued/{print $2}' $(schedfile $dev stats))" != 4 ] && [ $i -lt 30 ]; do
	sleep 0.05; i=$((i + 1))
done
queued=$(awk '/^queued/{print $2}' $(schedfile $dev stats))
wait
[ "$queued" = 4 ] || notok "set-up: only $queued of 4 reads queued while the first was in flight (guest too slow)"
echo 0 > $T/tracing_on
echo 0 > $T/events/block/block_rq_issue/enable
got=$(grep block_rq_issue $T/trace | sed -n 's/.*() \([0-9]*\) + .*/\1/p' | tr '\n' ' ')
want="$A $((A - 56)) $((A + 208)) $((A + 2000008)) $((A - 40000)) "
say "issued: $got"
say "wanted: $want"
check "short backward seek first, long backward seek waits for the sweep" [ "$got" = "$want" ]
set_sched $dev none
nullb_destroy nborder
exit $FAILED
