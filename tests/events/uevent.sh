#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Real cfqx, real loop device, real kernel uevents: a NETLINK_KOBJECT_UEVENT
# listener (uevent-listen: sender must be the kernel, port 0, uid 0)
# receives exactly the documented uevent after
#   1. a policy switch (`cfqx policy uid`), and
#   2. a reader starved behind writers (waited past fifo_expire_sync,
#      500 ms, the 2.6.10 default),
# each raised by `cfqx run` through the sysfs transport; then the same
# policy uevent again through the netlink transport (wire format injected
# into the host network namespace's uevent socket).
# It runs in a private mount namespace with its own bpffs, so its cfqx
# instance (pinned at the usual /sys/fs/bpf/cfqx) neither sees nor
# disturbs one that is already loaded on the host.
#
# How step 2 makes the starvation certain, on any machine: the loop
# device's backing file lives on an ext4 file system of the test's own,
# which the test freezes (fsfreeze).  The loop worker then blocks every
# write in sb_start_write (kiocb_start_write), so direct writes hold the
# device's driver tags until the thaw; with all tags held, mq-deadline
# must keep the reader's read in the scheduler, allocated (block_getrq,
# where cfqx starts the queue clock) but not issued.  The test waits, in
# bounded loops that fail with what they saw, until the writers hold
# every tag and until cfqx's own groups map shows the reader's request
# queued and not issued; it then holds the device for longer than
# fifo_expire_sync and checks the request is still queued before the
# thaw.  The sleep is a lower bound on the wait, not a guess: nothing can
# be dispatched while the backing store is frozen.  The device is real,
# the wait is real and it is measured by the real BPF accounting
# (block_getrq -> block_rq_issue), whatever the device's or CPU's speed.
# The alternatives were weaker here: the host kernel has no
# device-mapper (no dm-delay, no `dmsetup suspend`) and loads no modules
# (no null_blk); a threshold derived from measured queue times cannot go
# below 1 ms, which a fast loop device beats.
if [ -z "${CFQX_EV_PRIVATE_BPFFS:-}" ]; then
	exec unshare -m --propagation private \
		env CFQX_EV_PRIVATE_BPFFS=1 bash "$0" "$@"
fi
mount -t bpf bpf /sys/fs/bpf || { echo "FAIL: cannot mount a private bpffs"; exit 1; }
. "$(dirname "$0")/lib.sh"
# The backing store: a file on an ext4 file system that only this test
# uses, so that step 2 can freeze it (see the header).
truncate -s 320M "$STATE/fs.img"
mkfs.ext4 -q -F "$STATE/fs.img" || { echo "FAIL: mkfs.ext4"; exit 1; }
fsloop=$(losetup -f --show "$STATE/fs.img") || exit 1
on_exit "losetup -d $fsloop"
mkdir "$STATE/fs"
mount -t ext4 "$fsloop" "$STATE/fs" || { echo "FAIL: cannot mount the backing ext4"; exit 1; }
on_exit "umount $STATE/fs"
img=$STATE/fs/disk.img
truncate -s 256M "$img"
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
	"$BIN/uevent-listen" --timeout 60 --ready "$out.ready" "$@" > "$out" &
	LPID=$!
	on_exit "kill $LPID"
	wait_until 30 "uevent-listen ready (bound to the uevent socket)" \
		test -e "$out.ready"
}

start_run() {	# start_run STATE-SUBDIR [ARGS]
	local st=$STATE/$1
	shift
	"$CFQX" run --dev "$name" --state-dir "$st" --json "$st.jsonl" "$@" &
	DPID=$!
	on_exit "kill -TERM $DPID"
	wait_json "$st/daemon.json" '.running == true' 30 ||
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

# ---- 2. starvation of a reader behind writers that hold the device (see
# the header): freeze the backing ext4, let 8 direct writers take every
# driver tag, then the reader's read waits in mq-deadline.  Requests are
# cut at max_sectors_kb 64, so a writer's bs sets how many it queues:
# all together a few more than the driver tags (writers stay busy in the
# scheduler too), fewer than the scheduler's nr_requests (the reader must
# get a scheduler request, or it would wait before block_getrq, unseen).
expire_ms=500
hold_ms=$((expire_ms + 200))
echo mq-deadline > /sys/block/$name/queue/scheduler
max_kb=$(cat /sys/block/$name/queue/max_sectors_kb)
echo 64 > /sys/block/$name/queue/max_sectors_kb
on_exit "echo $max_kb > /sys/block/$name/queue/max_sectors_kb"
"$CFQX" policy tgid --fifo-expire-sync $expire_ms > /dev/null
tags=0
for t in /sys/block/$name/mq/*/nr_tags; do tags=$((tags + $(cat "$t"))); done
per_writer=$(( (tags + 7) / 8 + 1 ))
nr_rq=$(cat /sys/block/$name/queue/nr_requests)
[ "$nr_rq" -gt $((8 * per_writer)) ] ||
	{ echo "FAIL: nr_requests $nr_rq leaves no room for the reader beside $((8 * per_writer)) writes"; exit 1; }
# The reader's pid is known before it runs: a shell that waits, then
# execs dd (same pid, comm "dd").
mkfifo "$STATE/go"
sh -c "read x < '$STATE/go'; exec dd if='$loop' of=/dev/null bs=4k count=1 iflag=direct status=none" &
rpid=$!
on_exit "kill $rpid"
fsfreeze -f "$STATE/fs" || { echo "FAIL: cannot freeze the backing ext4"; exit 1; }
on_exit "fsfreeze -u $STATE/fs"
wpids=()
for i in 1 2 3 4 5 6 7 8; do
	dd if=/dev/zero of="$loop" bs=$((per_writer * 64))k count=1 seek=$i \
		oflag=direct conv=notrunc status=none &
	wpids+=($!)
done
# thaw before reaping the writers (they are in D state until then)
on_exit "kill ${wpids[*]}; fsfreeze -u $STATE/fs; wait ${wpids[*]}"
tags_held() { read -r _ w < /sys/block/$name/inflight; [ "$w" -ge "$tags" ]; }
wait_until 30 "writers holding all $tags driver tags" tags_held
say "writers hold all $tags driver tags"
reader() {	# the reader's group in cfqx's groups map, as JSON
	"$CFQX" stats --json | jq -c --arg d "$name" --argjson id "$rpid" \
		'[.devices[] | select(.name == $d) | .groups[] |
		  select(.group_by == "tgid" and .id == $id)] | first // {}'
}
listen "$STATE/starved.ev" --match SYNTH_ARG_CFQXEVENT=starved \
	--match "DEVPATH=$devpath" --match "SYNTH_ARG_CFQXID=$rpid" \
	--match SYNTH_ARG_CFQXGROUPBY=tgid
echo go > "$STATE/go"
reader_queued() { [ "$(reader | jq '.queued // 0')" -ge 1 ]; }
wait_until 30 "the reader's request queued in cfqx's groups map" reader_queued
r=$(reader)
eq "reader's request queued, not issued" "$(jq -c '[.queued, .issued]' <<< "$r")" "[1,0]"
sleep "$(printf '%d.%03d' $((hold_ms / 1000)) $((hold_ms % 1000)))"
r=$(reader)
eq "reader still waiting after ${hold_ms} ms" "$(jq -c '[.queued, .issued]' <<< "$r")" "[1,0]"
check "thawed the backing ext4" fsfreeze -u "$STATE/fs"
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
waited=$(val "$f" SYNTH_ARG_CFQXVALUE)
check "starved: CFQXVALUE (ns waited) > fifo_expire_sync (${expire_ms} ms)" \
	[ "${waited:-0}" -gt $((expire_ms * 1000000)) ]
check "starved: CFQXVALUE (ns waited) >= the ${hold_ms} ms the device was held" \
	[ "${waited:-0}" -ge $((hold_ms * 1000000)) ]
check "starved: CFQXVALUE2 (busy groups) > 1" [ "$(val "$f" SYNTH_ARG_CFQXVALUE2)" -gt 1 ]
eq "starved: keys" "$(keys "$f")" \
	"$(echo $BLOCK_KEYS $SYNTH_KEYS SYNTH_ARG_CFQXCOMM SYNTH_UUID | tr ' ' '\n' | sort | tr '\n' ' ')"
"$CFQX" policy --fifo-expire-sync 500 > /dev/null
echo none > /sys/block/$name/queue/scheduler
stop_run
# The JSON log has the same event with the same incident UUID (checked
# after the daemon exited: it flushes its JSON sink only when idle, maybe
# after the uevent went out).
uuid=$(val "$f" SYNTH_UUID)
check "the JSON log has the starved event with incident $uuid" \
	grep -q "\"event\":\"starved\".*\"incident\":\"$uuid\"" "$STATE/d1.jsonl"
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
