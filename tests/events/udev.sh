#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# cfqx uevents with a real systemd-udevd (started here, stopped after):
#  1. a plain `change` on a loop device holding ext4 makes udev probe it
#     (blkid): the device's read counters grow;
#  2. a cfqx `change` uevent (raised by `cfqx run` from a generated starved
#     event) makes no read at all with udev/59-cfqx.rules installed, and the
#     /dev/disk/by-uuid link survives;
#  3. a temporary rule matching ENV{SYNTH_ARG_CFQXEVENT}=="starved" runs a
#     command that receives the documented keys;
#  4. control: without the rules file the same cfqx uevent does read.
. "$(dirname "$0")/lib.sh"
CFQX=$ROOT/build/cfqx-asan	# the daemon's uevent path under ASan/UBSan
UDEVD=/lib/systemd/systemd-udevd
[ -x $UDEVD ] || { echo "FAIL: $UDEVD missing (Debian package udev)"; exit 1; }
if pgrep -x systemd-udevd >/dev/null; then
	echo "FAIL: a systemd-udevd is already running; this test starts its own"
	exit 1
fi

img=$STATE/disk.img
truncate -s 64M "$img"
mkfs.ext4 -q -U 6c1e1b6a-cf9a-4e11-9b1e-0123456789ab "$img"
loop=$(losetup -f --show "$img") || exit 1
on_exit "losetup -d $loop"
name=${loop#/dev/}
devnum=$(cat /sys/class/block/$name/dev)

mkdir -p /run/udev/rules.d
cp "$ROOT/udev/59-cfqx.rules" /run/udev/rules.d/59-cfqx.rules
on_exit "rm -f /run/udev/rules.d/59-cfqx.rules"
fired=$STATE/fired
cat > /run/udev/rules.d/99-cfqx-test.rules <<RULE
ACTION=="change", SUBSYSTEM=="block", ENV{SYNTH_ARG_CFQXEVENT}=="starved", RUN+="/bin/sh -c 'echo \$kernel \$env{SYNTH_ARG_CFQXID} \$env{SYNTH_ARG_CFQXVALUE} \$env{SYNTH_UUID} >> $fired'"
RULE
on_exit "rm -f /run/udev/rules.d/99-cfqx-test.rules"

$UDEVD --debug > "$STATE/udevd.log" 2>&1 &
upid=$!
on_exit "kill $upid; wait $upid"
wait_until 30 "systemd-udevd listening on /run/udev/control" test -S /run/udev/control
# The control socket comes before udevd's event loop and its netlink
# monitor: a uevent sent in between is never seen and `trigger --settle`
# would wait for it for ever.  --ping returns once the loop runs; every
# settle is bounded and fails clearly.
udev_ready() { udevadm control --ping --timeout=5 2>/dev/null; }
wait_until 30 "systemd-udevd answers a ping" udev_ready
trigger() { # trigger ACTION: a uevent on the loop device, waited for
	timeout 60 udevadm trigger --settle --action="$1" "/sys/class/block/$name" ||
		{ echo "FAIL: udev did not handle the $1 uevent within 60 s"; exit 1; }
}
trigger add

reads() { awk '{ print $1 }' "/sys/class/block/$name/stat"; }
flush() { blockdev --flushbufs "$loop"; sync; }

check "udev created the by-uuid link on add" \
	test -L /dev/disk/by-uuid/6c1e1b6a-cf9a-4e11-9b1e-0123456789ab

# `udevadm settle` alone does not prove udev has taken a uevent (it may
# not have read it from its socket yet).  Uevents the test triggers use
# `udevadm trigger --settle`, which waits for those very events; for the
# cfqx uevents (sent by cfqx run) the positive check polls the read
# counter (bounded), the negative one waits for the test rule's command,
# which udev runs after the rules (and any blkid probe) ran.
reads_above() { [ "$(reads)" -gt "$1" ]; }
fired_lines() { [ "$(cat "$fired" 2>/dev/null | wc -l)" -ge "$1" ]; }

# 1. plain change: udev probes the disk
flush
r0=$(reads)
trigger change
r1=$(reads)
say "plain change: reads $r0 -> $r1"
check "a plain change uevent reads the device (blkid probe)" [ "$r1" -gt "$r0" ]

# 2. cfqx change: no read
"$BIN/cfqx-storm" --maps "$MAPS" --create 1048576 --events 0 >/dev/null
"$CFQX" run --no-load --maps "$MAPS" --state-dir "$STATE/d" --dev "$name" &
dpid=$!
on_exit "kill -TERM $dpid"
wait_json "$STATE/d/daemon.json" '.running == true' 30 ||
	{ echo "FAIL: cfqx run did not start in 30 s"; exit 1; }
flush
r2=$(reads)
"$BIN/cfqx-storm" --maps "$MAPS" --events 1 --per-trigger 1 --kind 4 \
	--dev "$devnum" >/dev/null
wait_json "$STATE/d/daemon.json" '.uevents >= 1' 30 ||
	{ echo "FAIL: cfqx run sent no uevent in 30 s"; exit 1; }
wait_until 30 "udev running the test rule's command for the cfqx uevent" fired_lines 1
udevadm settle -t 20
r3=$(reads)
say "cfqx change: reads $r2 -> $r3"
eq "a cfqx uevent makes no read on the device" "$r3" "$r2"
check "the by-uuid link survives the cfqx uevent" \
	test -L /dev/disk/by-uuid/6c1e1b6a-cf9a-4e11-9b1e-0123456789ab
check "udev saw the cfqx uevent (CFQX_EVENT=1 in its database)" \
	bash -c "udevadm info -q property -n $loop | grep -qx CFQX_EVENT=1"

# 3. the rule matching ENV{SYNTH_ARG_CFQXEVENT} fired with the keys
check "the ENV{SYNTH_ARG_CFQXEVENT}==\"starved\" rule ran its command" test -s "$fired"
[ -s "$fired" ] && say "rule output: $(cat "$fired")"
check "the command got device, CFQXID and CFQXVALUE from the uevent" \
	grep -Eq "^$name 1000 1 [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\$" "$fired"

# 4. control: without 59-cfqx.rules the same cfqx uevent does read
rm -f /run/udev/rules.d/59-cfqx.rules
udevadm control --reload
flush
r4=$(reads)
"$BIN/cfqx-storm" --maps "$MAPS" --events 1 --per-trigger 1 --kind 4 \
	--dev "$devnum" >/dev/null
wait_json "$STATE/d/daemon.json" '.uevents >= 2' 30 ||
	{ echo "FAIL: cfqx run sent no second uevent in 30 s"; exit 1; }
wait_until 30 "a read of $name after the cfqx uevent without 59-cfqx.rules" reads_above "$r4"
r5=$(reads)
say "cfqx change without the rules file: reads $r4 -> $r5"
check "without 59-cfqx.rules the cfqx uevent would read the device" [ "$r5" -gt "$r4" ]

kill -TERM $dpid
wait $dpid
eq "cfqx run exit status" $? 0
finish
