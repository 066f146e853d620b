#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Real cfqx, real loop device, real kernel uevents: a NETLINK_KOBJECT_UEVENT
# listener (uevent-listen: sender must be the kernel, port 0, uid 0)
# receives exactly the documented uevent after
#   1. a policy switch (`cfqx policy uid`), and
#   2. a reader starved behind a writer flood (fifo_expire_sync 1 ms),
# each raised by `cfqx run` through the sysfs transport; then the same
# policy uevent again through the netlink transport (wire format injected
# into the host network namespace's uevent socket).
# It runs in a private mount namespace with its own bpffs, so its cfqx
# instance (pinned at the usual /sys/fs/bpf/cfqx) neither sees nor
# disturbs one that is already loaded on the host.
if [ -z "${CFQX_EV_PRIVATE_BPFFS:-}" ]; then
	exec unshare -m --propagation private \
		env CFQX_EV_PRIVATE_BPFFS=1 bash "$0" "$@"
fi
mount -t bpf bpf /sys/fs/bpf || { echo "FAIL: cannot mount a private bpffs"; exit 1; }
. "$(dirname "$0")/lib.sh"
img=$STATE/disk.img
truncate -s 1G "$img"
loop=$(losetup -f --show "$img") || exit 1
on_exit "losetup -d $loop"
name=${loop#/dev/}
devnum=$(cat /sys/class/block/$name/dev)
kdev=$(( (${devnum%:*} << 20) | ${devnum#*:} ))
devpath=$(readlink -f /sys/class/block/$name); devpath=${devpath#/sys}

"$CFQX" load --dev "$name" || { echo "FAIL: cfqx load"; exit 1; }
on_exit "$CFQX unload"

listen() {	# listen OUT MATCH...: background listener, ready when it returns
	local out=$1
	shift
	rm -f "$out.ready"
	"$BIN/uevent-listen" --timeout 30 --ready "$out.ready" "$@" > "$out" &
	LPID=$!
	on_exit "kill $LPID"
	for _ in $(seq 50); do [ -e "$out.ready" ] && break; sleep 0.1; done
}

start_run() {	# start_run STATE-SUBDIR [ARGS]
	local st=$STATE/$1
	shift
	"$CFQX" run --dev "$name" --state-dir "$st" --json "$st.jsonl" "$@" &
	DPID=$!
	on_exit "kill -TERM $DPID"
	wait_json "$st/daemon.json" '.running == true' 10 ||
		{ echo "FAIL: cfqx run did not start"; exit 1; }
}
stop_run() {
	kill -TERM "$DPID"
	wait "$DPID"
	eq "cfqx run exit status" $? 0
}

io() { dd if="$loop" of=/dev/null bs=4k count=4 iflag=direct status=none; }

# The keys of a received uevent (KEY=VALUE lines), as one sorted line.
keys() { grep -o '^[A-Z_0-9]*=' "$1" | tr -d = | sort | tr '\n' ' '; }
val() { sed -n "s/^$2=//p" "$1" | head -1; }
UUID_RE='^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
SYNTH_KEYS="SYNTH_ARG_CFQXDEV SYNTH_ARG_CFQXEVENT SYNTH_ARG_CFQXFLAGS SYNTH_ARG_CFQXGROUPBY SYNTH_ARG_CFQXID SYNTH_ARG_CFQXKIND SYNTH_ARG_CFQXSEQ SYNTH_ARG_CFQXSUPPRESSED SYNTH_ARG_CFQXTS SYNTH_ARG_CFQXVALUE SYNTH_ARG_CFQXVALUE2 SYNTH_ARG_CFQXVER"
BLOCK_KEYS="ACTION DEVNAME DEVPATH DEVTYPE DISKSEQ MAJOR MINOR SEQNUM SUBSYSTEM"

check_policy_uevent() {	# FILE OLD NEW LABEL
	local f=$1 label=$4
	check "$label: received" test -s "$f"
	eq "$label: header" "$(head -1 "$f")" "change@$devpath"
	eq "$label: ACTION" "$(val "$f" ACTION)" change
	eq "$label: DEVPATH" "$(val "$f" DEVPATH)" "$devpath"
	eq "$label: SUBSYSTEM" "$(val "$f" SUBSYSTEM)" block
	eq "$label: DEVNAME" "$(val "$f" DEVNAME)" "$name"
	eq "$label: exactly the documented keys" "$(keys "$f")" \
		"$(echo $BLOCK_KEYS $SYNTH_KEYS SYNTH_UUID | tr ' ' '\n' | sort | tr '\n' ' ')"
	check "$label: SYNTH_UUID is a v4 UUID" bash -c "grep -Eq '$UUID_RE' <<< '$(val "$f" SYNTH_UUID)'"
	eq "$label: CFQXVER" "$(val "$f" SYNTH_ARG_CFQXVER)" 1
	eq "$label: CFQXEVENT" "$(val "$f" SYNTH_ARG_CFQXEVENT)" policy
	eq "$label: CFQXKIND" "$(val "$f" SYNTH_ARG_CFQXKIND)" 1
	eq "$label: CFQXDEV (kernel dev_t of $name)" "$(val "$f" SYNTH_ARG_CFQXDEV)" "$kdev"
	eq "$label: CFQXVALUE (old key)" "$(val "$f" SYNTH_ARG_CFQXVALUE)" "$2"
	eq "$label: CFQXVALUE2 (new key)" "$(val "$f" SYNTH_ARG_CFQXVALUE2)" "$3"
	eq "$label: CFQXID" "$(val "$f" SYNTH_ARG_CFQXID)" 0
	eq "$label: CFQXSUPPRESSED" "$(val "$f" SYNTH_ARG_CFQXSUPPRESSED)" 0
}

# ---- 1. policy switch, sysfs transport (a global cap high enough that
# the writer flood below cannot crowd out the reader's uevent)
start_run d1 --uevent-global-rate 100000
io	# the first request since load is not a switch
listen "$STATE/policy.ev" --match SYNTH_ARG_CFQXEVENT=policy --match "DEVPATH=$devpath"
"$CFQX" policy uid > /dev/null || echo "cfqx policy uid failed"
io
wait $LPID
eq "listener got the policy uevent" $? 0
cat "$STATE/policy.ev"
check_policy_uevent "$STATE/policy.ev" 0 2 "policy tgid->uid"

# ---- 2. starvation of a reader behind a writer flood.  mq-deadline
# holds requests in the scheduler, so a reader queues behind 8 writers'
# 4 MiB direct writes; fifo_expire_sync 1 ms makes that starvation.
echo mq-deadline > /sys/block/$name/queue/scheduler
"$CFQX" policy tgid --fifo-expire-sync 1 > /dev/null
# The reader's pid is known before it runs: a shell that waits, then
# execs dd (same pid, comm "dd").
mkfifo "$STATE/go"
sh -c "read x < '$STATE/go'; exec dd if='$loop' of=/dev/null bs=4k count=5000 iflag=direct status=none" &
rpid=$!
listen "$STATE/starved.ev" --match SYNTH_ARG_CFQXEVENT=starved \
	--match "DEVPATH=$devpath" --match "SYNTH_ARG_CFQXID=$rpid" \
	--match SYNTH_ARG_CFQXGROUPBY=tgid
wpids=()
for i in 1 2 3 4 5 6 7 8; do
	dd if=/dev/zero of="$loop" bs=4M count=25 seek=$((i * 25)) \
		oflag=direct conv=notrunc status=none &
	wpids+=($!)
done
on_exit "kill ${wpids[*]}"
sleep 0.2
echo go > "$STATE/go"
wait $LPID
lrc=$?
wait $rpid "${wpids[@]}"
eq "listener got a starved uevent of dd" $lrc 0
cat "$STATE/starved.ev"
f=$STATE/starved.ev
eq "starved: DEVPATH" "$(val "$f" DEVPATH)" "$devpath"
eq "starved: SUBSYSTEM" "$(val "$f" SUBSYSTEM)" block
eq "starved: ACTION" "$(val "$f" ACTION)" change
eq "starved: CFQXKIND" "$(val "$f" SYNTH_ARG_CFQXKIND)" 4
eq "starved: CFQXDEV" "$(val "$f" SYNTH_ARG_CFQXDEV)" "$kdev"
id=$(val "$f" SYNTH_ARG_CFQXID)
eq "starved: CFQXID is the reader's pid" "$id" "$rpid"
eq "starved: CFQXCOMM is hex of \"dd\"" "$(val "$f" SYNTH_ARG_CFQXCOMM)" 6464
check "starved: CFQXVALUE (ns waited) > fifo_expire_sync (1 ms)" \
	[ "$(val "$f" SYNTH_ARG_CFQXVALUE)" -gt 1000000 ]
eq "starved: keys" "$(keys "$f")" \
	"$(echo $BLOCK_KEYS $SYNTH_KEYS SYNTH_ARG_CFQXCOMM SYNTH_UUID | tr ' ' '\n' | sort | tr '\n' ' ')"
# The JSON log has the same event with the same incident UUID.
uuid=$(val "$f" SYNTH_UUID)
check "the JSON log has the starved event with incident $uuid" \
	grep -q "\"event\":\"starved\".*\"incident\":\"$uuid\"" "$STATE/d1.jsonl"
"$CFQX" policy --fifo-expire-sync 500 > /dev/null
echo none > /sys/block/$name/queue/scheduler
stop_run
c=$STATE/d1/daemon.json
cat "$c"
eq "daemon: read == valid + malformed + unknown_kind + kfifo_full" "$(j .read "$c")" \
	"$(( $(j .valid "$c") + $(j .malformed "$c") + $(j .unknown_kind "$c") + $(j .kfifo_full "$c") ))"
eq "daemon: every valid event was notified, suppressed or failed" "$(j .valid "$c")" \
	"$(( $(j .uevents "$c") + $(j .uevent_ratelimited "$c") + $(j .uevent_errors "$c") + $(j .uevent_nodev "$c") + $(j .uevent_filtered "$c") ))"
eq "daemon: no uevent errors" "$(j .uevent_errors "$c")" 0

# ---- 3. the netlink transport: same policy uevent, kernel-sent
start_run d2 --transport netlink
io
listen "$STATE/policy-nl.ev" --match SYNTH_ARG_CFQXEVENT=policy --match "DEVPATH=$devpath"
"$CFQX" policy uid > /dev/null
io
wait $LPID
eq "listener got the netlink-transport policy uevent" $? 0
check_policy_uevent "$STATE/policy-nl.ev" 0 2 "netlink policy tgid->uid"
"$CFQX" policy tgid > /dev/null
stop_run
finish
