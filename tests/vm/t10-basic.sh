# cfqx on a loop device and on null_blk: selection, tunables (bad writes
# get -EINVAL and change nothing), I/O through it, scheduler switches to
# none / mq-deadline / kyber / bfq and back while fio keeps the device busy.
# fio runs until the test stops it (--trigger-file), and each switch waits
# for I/O completed under the new scheduler: the load is certain, not a
# matter of fio's runtime outlasting the switches.
. /tests/lib.sh
FAILED=0

check "cfqx is offered on a loop device" true
dd if=/dev/zero of=/tmp/loop.img bs=1M count=64 2>/dev/null
loopdev=$(losetup -f) && losetup $loopdev /tmp/loop.img
loop=$(basename $loopdev)
check "loop device lists cfqx" grep -qw cfqx /sys/block/$loop/queue/scheduler
set_sched $loop cfqx
check "cfqx selected on $loop" [ "$(cur_sched $loop)" = cfqx ]
check "group_by reads [tgid] pgid uid gid cgroup" \
	[ "$(cat $(iosched $loop group_by))" = "[tgid] pgid uid gid cgroup" ]
for f in quantum queued fifo_expire_sync fifo_expire_async fifo_batch_expire \
	 back_seek_max back_seek_penalty max_depth slice_idle policy_map; do
	[ -r $(iosched $loop $f) ] || notok "tunable $f missing"
done
check "defaults: quantum 4, fifo_expire_sync 500, back_seek_max 16384" \
	[ "$(cat $(iosched $loop quantum)) $(cat $(iosched $loop fifo_expire_sync)) $(cat $(iosched $loop back_seek_max))" = "4 500 16384" ]
check "policy_map reads none" [ "$(cat $(iosched $loop policy_map))" = none ]

bad_write() { # bad_write FILE VALUE: must fail and leave the value alone
	local before=$(cat $1)
	if echo "$2" > $1 2>/dev/null; then return 1; fi
	[ "$(cat $1)" = "$before" ]
}
check "quantum 0 rejected, unchanged" bad_write $(iosched $loop quantum) 0
check "quantum 65 rejected, unchanged" bad_write $(iosched $loop quantum) 65
check "quantum 'x' rejected, unchanged" bad_write $(iosched $loop quantum) x
check "group_by 'session' rejected, unchanged" bad_write $(iosched $loop group_by) session
check "max_depth 0 rejected" bad_write $(iosched $loop max_depth) 0
check "slice_idle 100001 rejected" bad_write $(iosched $loop slice_idle) 100001
check "policy_map -5 rejected" bad_write $(iosched $loop policy_map) -5
check "policy_map 1 (not a map) rejected" bad_write $(iosched $loop policy_map) 1
echo uid > $(iosched $loop group_by)
check "group_by uid accepted" [ "$(cat $(iosched $loop group_by))" = "tgid pgid [uid] gid cgroup" ]
echo 8 > $(iosched $loop quantum)
check "quantum 8 accepted" [ "$(cat $(iosched $loop quantum))" = 8 ]
echo tgid > $(iosched $loop group_by); echo 4 > $(iosched $loop quantum)

dd if=/dev/urandom of=/tmp/pattern bs=64k count=64 2>/dev/null
dd if=/tmp/pattern of=$loopdev bs=64k oflag=direct 2>/dev/null
sync; echo 3 > /proc/sys/vm/drop_caches
dd if=$loopdev of=/tmp/back bs=64k count=64 iflag=direct 2>/dev/null
check "data written and read back through cfqx on $loop" cmp -s /tmp/pattern /tmp/back
check "cfqx dispatched requests on $loop" \
	[ "$(awk '/^dispatched/{print $2}' $(schedfile $loop stats))" -gt 0 ]
set_sched $loop none
losetup -d $loopdev; rm -f /tmp/loop.img /tmp/pattern /tmp/back

dev=$(nullb_create nbbasic queue_mode=2 irqmode=2 completion_nsec=100000 \
	hw_queue_depth=64 size=2048 blocksize=4096 memory_backed=0)
set_sched $dev cfqx
check "cfqx selected on $dev" [ "$(cur_sched $dev)" = cfqx ]
cat > /tmp/switch.fio <<JOB
[global]
filename=/dev/$dev
direct=1
runtime=600
time_based=1
size=1g
[rr]
ioengine=libaio
iodepth=16
rw=randrw
bs=16k
[seq]
rw=read
bs=128k
[buffered]
direct=0
rw=write
bs=64k
uid=1001
gid=1001
JOB
rm -f /tmp/switch.stop
fio --trigger-file=/tmp/switch.stop --output-format=json \
	--output=$FIO_OUT/switch.json /tmp/switch.fio >/dev/null 2>$FIO_OUT/switch.err &
fpid=$!
n=$(ios $dev)
wait_until 60 "fio I/O on $dev" io_since $dev $n
for s in none cfqx mq-deadline cfqx kyber cfqx bfq cfqx none cfqx; do
	kill -0 $fpid 2>/dev/null || notok "fio ended before the switch to $s"
	set_sched $dev $s || notok "switch to $s under load"
	n=$(ios $dev)
	wait_until 60 "I/O completed on $dev under $s" io_since $dev $n
done
touch /tmp/switch.stop	# fio stops its jobs and reports
wait $fpid
frc=$?
check "fio survived 10 scheduler switches under load (rc $frc)" [ $frc -eq 0 ]
check "fio saw no I/O errors" [ "$(fio_errors $FIO_OUT/switch.json)" = 0 ]
sync
check "cfqx drained: nothing queued or in flight" \
	[ "$(awk '/^queued|^in_flight/{s+=$2} END{print s}' $(schedfile $dev stats))" = 0 ]
say "stats: $(tr '\n' ' ' < $(schedfile $dev stats))"
set_sched $dev mq-deadline
check "back to mq-deadline" [ "$(cur_sched $dev)" = mq-deadline ]
nullb_destroy nbbasic

# A one-deep reader's request goes out from the submitter, as without an
# elevator.  blk-mq follows an elevator's insert of a bio submitted
# outside a plug with a kblockd queue run (6.1; 6.12 plugs every
# submission in __submit_bio(), and the plug's flush runs the queue in
# place); cfqx's insert runs the queue itself (cfqx_may_run_inline()).
# On a null_blk that completes inside queue_rq the reader then does not
# sleep: context switches per read, under none, mq-deadline and cfqx in
# this boot.
dev=$(nullb_create nbinline queue_mode=2 irqmode=0 size=1024 memory_backed=0) ||
	{ notok "create the inline null_blk"; exit $FAILED; }
switches_per_read() { # SCHED: context switches per read of a psync reader
	local x0 n0
	set_sched $dev $1
	x0=$(ctxt); n0=$(ios $dev)
	fio --name=inline --filename=/dev/$dev --direct=1 --rw=randread --bs=4k \
		--ioengine=psync --runtime=1 --time_based=1 --output=/dev/null >/dev/null 2>&1
	awk -v x="$(( $(ctxt) - x0 ))" -v n="$(( $(ios $dev) - n0 ))" \
		'BEGIN { printf "%.3f", n ? x / n : 99 }'
}
no=$(switches_per_read none)
dl=$(switches_per_read mq-deadline)
cx=$(switches_per_read cfqx)
say "context switches per psync read: none $no, mq-deadline $dl, cfqx $cx; cfqx: $(grep -E '^(dispatched|inline_runs) ' $(schedfile $dev stats) | tr '\n' ' ')"
check "a one-deep reader's reads leave from the submitter: cfqx $cx switches per read, within half a switch of none's $no" \
	awk -v c=$cx -v n=$no 'BEGIN { exit !(c <= n + 0.5) }'
set_sched $dev none
nullb_destroy nbinline
exit $FAILED
