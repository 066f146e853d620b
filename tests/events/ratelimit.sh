#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Coalescing, rate limiting and incident UUIDs of `cfqx run` (ASan/UBSan
# build), seen by a real NETLINK_KOBJECT_UEVENT listener on a loop device:
#  - 100 starved events of one group in a burst: 3 uevents (the burst),
#    97 suppressed and counted;
#  - the next one after a second carries CFQXSUPPRESSED=97;
#  - all of them, and the group's idle, share one incident UUID; the
#    group's next event after idle starts a new incident.
. "$(dirname "$0")/lib.sh"
CFQX=$ROOT/build/cfqx-asan
img=$STATE/disk.img
truncate -s 16M "$img"
loop=$(losetup -f --show "$img") || exit 1
on_exit "losetup -d $loop"
name=${loop#/dev/}
devnum=$(cat /sys/class/block/$name/dev)
devpath=$(readlink -f /sys/class/block/$name); devpath=${devpath#/sys}
val() { sed -n "s/^$2=//p" "$1"; }

# Bad input: one clear line, non-zero exit, nothing created.
for args in "--uevent-rate 0" "--transport foo" "--netns /x" "--dev nosuchdev" \
	"--fifo-size 5000" "--bogus" "extra" "--no-load --maps $STATE/none"; do
	err=$("$CFQX" run $args --state-dir "$STATE/bad" 2>&1 >/dev/null)
	rc=$?
	check "cfqx run $args: exit $rc, one line: $err" \
		[ $rc -ne 0 -a "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
done
check "bad input created no state directory" test ! -e "$STATE/bad"

"$BIN/cfqx-storm" --maps "$MAPS" --create 1048576 --events 0 >/dev/null
"$BIN/uevent-listen" --timeout 60 --ready "$STATE/ready" --count 6 \
	--match "DEVPATH=$devpath" --match SYNTH_ARG_CFQXID=1000 > "$STATE/ev" &
lpid=$!
on_exit "kill $lpid"
wait_until 30 "uevent-listen ready" test -e "$STATE/ready"
"$CFQX" run --no-load --maps "$MAPS" --state-dir "$STATE/d" --dev "$name" &
dpid=$!
on_exit "kill -TERM $dpid"
wait_json "$STATE/d/daemon.json" '.running == true' 30 ||
	{ echo "FAIL: cfqx run did not start in 30 s"; exit 1; }
c=$STATE/d/daemon.json

storm() { "$BIN/cfqx-storm" --maps "$MAPS" --dev "$devnum" "$@" >/dev/null; }
storm --events 100 --per-trigger 100 --kind 4
wait_json "$c" '.valid >= 100' 30 ||
	{ echo "FAIL: cfqx run did not take the 100 events in 30 s"; exit 1; }
eq "burst: uevents sent" "$(j .uevents "$c")" 3
eq "burst: suppressed and counted" "$(j .uevent_ratelimited "$c")" 97
sleep 1.1
storm --events 1 --per-trigger 1 --kind 4
storm --events 1 --per-trigger 1 --kind 3	# idle closes the incident
storm --events 1 --per-trigger 1 --kind 2	# busy: a new incident
wait $lpid
eq "listener got 6 uevents" $? 0
mapfile -t events < <(val "$STATE/ev" SYNTH_ARG_CFQXEVENT)
mapfile -t supp < <(val "$STATE/ev" SYNTH_ARG_CFQXSUPPRESSED)
mapfile -t uuids < <(val "$STATE/ev" SYNTH_UUID)
eq "kinds in order" "${events[*]}" "starved starved starved starved idle busy"
eq "CFQXSUPPRESSED of each" "${supp[*]}" "0 0 0 97 0 0"
eq "starved x4 and idle share one incident UUID" \
	"$(printf '%s\n' "${uuids[@]:0:5}" | sort -u | wc -l)" 1
check "the busy after idle opens a new incident" [ "${uuids[5]}" != "${uuids[0]}" ]
kill -TERM $dpid
wait $dpid
eq "cfqx run exit status" $? 0
eq "every valid event notified or suppressed" "$(j .valid "$c")" \
	"$(( $(j .uevents "$c") + $(j .uevent_ratelimited "$c") ))"
finish
