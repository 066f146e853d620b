# Live policy through the BPF map: attach a pinned cfqx policy array map
# to the elevator (the fd protocol `cfqx load --elevator` uses), switch
# group_by tgid -> uid with `bpftool map update` while fio runs, and see
# new requests grouped by uid at once; a bad map value is ignored and
# counted; a tunable write while attached lands in the map; detach; no
# request lost or stuck.  Every step waits (bounded) for what it checks
# to show in the groups/stats files while fio runs; fio runs until the
# test stops it (--trigger-file), not for a runtime the steps must fit in.
. /tests/lib.sh
FAILED=0
PIN=/sys/fs/bpf/cfqx-vm-policy
cleanup() { rm -f $PIN; }
trap cleanup EXIT
# 12 little-endian u32 fields of struct cfqx_policy as bpftool bytes.
policy_bytes() {
	local v
	for v in "$@"; do
		printf '%d %d %d %d ' $((v & 255)) $(((v >> 8) & 255)) $(((v >> 16) & 255)) $(((v >> 24) & 255))
	done
}
# group_by quantum queued max_queued sync async batch back_max penalty depth idle rate
POL_TGID="0 4 8 64 500 5000 125 16384 2 4 2000 10"
POL_UID="2 4 8 64 500 5000 125 16384 2 4 2000 10"
POL_BAD="9 4 8 64 500 5000 125 16384 2 4 2000 10"

dev=$(nullb_create nbpolicy queue_mode=2 irqmode=2 completion_nsec=200000 \
	hw_queue_depth=64 size=4096 blocksize=4096 memory_backed=0) || exit 1
set_sched $dev cfqx
rm -f $PIN
bpftool map create $PIN type array key 4 value 48 entries 1 name policy ||
	{ notok "bpftool map create"; exit 1; }
bpftool map update pinned $PIN key 0 0 0 0 value $(policy_bytes $POL_TGID)
check "attach the pinned map through policy_map" cfqx-vm-attach $PIN $(iosched $dev policy_map)
check "policy_map shows the map id" grep -q '^id [0-9]' $(iosched $dev policy_map)
check "bad fd (a non-map) rejected" sh -c "! echo 0 > /dev/null; ! echo 2 > $(iosched $dev policy_map)"

cat > /tmp/pol.fio <<JOB
[global]
filename=/dev/$dev
direct=1
bs=16k
rw=randread
runtime=600
time_based=1
ioengine=libaio
iodepth=4
[a]
uid=1001
gid=1001
[b]
uid=1001
gid=1001
[c]
uid=1002
gid=1002
JOB
rm -f /tmp/pol.stop
fio --trigger-file=/tmp/pol.stop --output-format=json --output=$FIO_OUT/pol.json \
	/tmp/pol.fio >/dev/null 2>$FIO_OUT/pol.err &
fpid=$!
has_group() { grep -q "^$1 " $(schedfile $dev groups); }
bad_counted() { [ "$(awk '/^bad_policy/{print $2}' $(schedfile $dev stats))" -ge 1 ]; }
wait_until 60 "fio's per-process (tgid) groups" has_group tgid
check "under tgid: per-process groups, no uid groups" sh -c "! grep -q '^uid ' $(schedfile $dev groups)"
bpftool map update pinned $PIN key 0 0 0 0 value $(policy_bytes $POL_UID)
check "group_by follows the map at once" [ "$(cat $(iosched $dev group_by))" = "tgid pgid [uid] gid cgroup" ]
wait_until 60 "a uid 1001 group" has_group "uid 1001" &&
	wait_until 60 "a uid 1002 group" has_group "uid 1002"
check "new requests grouped by uid 1001 and 1002 while fio runs" [ $? -eq 0 ]
say "groups: $(grep -c . $(schedfile $dev groups)) lines"
sed 's/^/    /' $(schedfile $dev groups)
bpftool map update pinned $PIN key 0 0 0 0 value $(policy_bytes $POL_BAD)
wait_until 60 "the bad policy counted (bad_policy >= 1)" bad_counted
check "bad map value ignored (still uid) and counted" sh -c \
	"[ \"\$(cat $(iosched $dev group_by))\" = 'tgid pgid [uid] gid cgroup' ] && [ \$(awk '/^bad_policy/{print \$2}' $(schedfile $dev stats)) -ge 1 ]"
bpftool map update pinned $PIN key 0 0 0 0 value $(policy_bytes $POL_UID)
echo 6 > $(iosched $dev quantum)
check "tunable write while attached lands in the map" \
	sh -c "bpftool -j map lookup pinned $PIN key 0 0 0 0 | jq -e '.value[4] == \"0x06\" or .value[4] == 6' >/dev/null"
touch /tmp/pol.stop	# fio stops its jobs and reports
wait $fpid
frc=$?
check "fio finished cleanly through the switches (rc $frc)" [ $frc -eq 0 ] && [ "$(fio_errors $FIO_OUT/pol.json)" = 0 ]
check "nothing queued or in flight afterwards" \
	[ "$(awk '/^queued|^in_flight/{s+=$2} END{print s}' $(schedfile $dev stats))" = 0 ]
echo -1 > $(iosched $dev policy_map)
check "detach: policy_map reads none" [ "$(cat $(iosched $dev policy_map))" = none ]
check "after detach the last policy stays (quantum 6)" [ "$(cat $(iosched $dev quantum))" = 6 ]
# Elevator exit drops the reference too: attach again and switch away.
cfqx-vm-attach $PIN $(iosched $dev policy_map)
set_sched $dev none
rm -f $PIN
check "map freed once unpinned and the elevator let go" \
	sh -c "! bpftool map show 2>/dev/null | grep -q 'name policy'"
nullb_destroy nbpolicy
exit $FAILED
