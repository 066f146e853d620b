# The cfqx command drives the elevator on 6.1: `cfqx load --dev DEV
# --elevator` selects cfqx and hands it the pinned policy map; `cfqx policy
# uid` switches BPF accounting and elevator together; `cfqx unload` leaves
# no reference behind (policy_map reads none).
. /tests/lib.sh
FAILED=0
if [ ! -x /cfqx/bin/cfqx ]; then
	notok "cfqx command not in the initramfs (build/cfqx not built)"
	exit 1
fi
dev=$(nullb_create nbcmd queue_mode=2 irqmode=2 completion_nsec=100000 \
	hw_queue_depth=64 size=1024 blocksize=4096 memory_backed=0) || exit 1
trap 'cfqx unload >/dev/null 2>&1; nullb_destroy nbcmd' EXIT
cfqx unload >/dev/null 2>&1
check "cfqx load --dev $dev --elevator" cfqx load --dev $dev --elevator
check "cfqx elevator selected" [ "$(cur_sched $dev)" = cfqx ]
check "policy map attached (policy_map: $(cat $(iosched $dev policy_map)))" \
	grep -q '^id [0-9]' $(iosched $dev policy_map)
check "cfqx policy uid" sh -c 'cfqx policy uid >/dev/null'
check "elevator follows: group_by uid" [ "$(cat $(iosched $dev group_by))" = "tgid pgid [uid] gid cgroup" ]
# Groups live as long as their processes: look while the reader runs
# (it reads the whole device and is stopped once the group was seen).
dd if=/dev/$dev of=/dev/null bs=64k iflag=direct 2>/dev/null &
ddpid=$!
uid0_group() { grep -q '^uid 0 ' $(schedfile $dev groups); }
wait_until 60 "a uid 0 group while dd reads" uid0_group
check "requests grouped by uid 0" uid0_group
kill $ddpid 2>/dev/null
wait $ddpid
echo 7 > $(iosched $dev quantum)
check "sysfs tunable write visible to cfqx policy (quantum 7)" sh -c "cfqx policy --json | grep -q '\"quantum\": *7'"
check "cfqx unload" cfqx unload
check "unload detached the elevator: policy_map none" [ "$(cat $(iosched $dev policy_map))" = none ]
set_sched $dev none
exit $FAILED
