#!/usr/bin/env bash
# Runs one test command, records its verdict in build/test-results/ and
# fails it when the kernel logged a splat (WARNING, BUG, Oops, lockdep,
# sanitizer report) while it ran.  Usage: run-test.sh NAME CMD [ARG]...
# New kernel messages are found by /dev/kmsg sequence number, not by
# counting dmesg lines: a full log buffer drops old lines as new ones
# come, and the line count would then hide every new splat.
set -u
name=$1
shift
results=${CFQX_RESULTS:-$(dirname "$0")/../build/test-results}
mkdir -p "$results"
rm -f "$results/$name".{pass,fail}

# kmsg records: "prio,seq,usec,flags;message" (continuation lines start
# with a space); a non-blocking read ends with EAGAIN after the last one.
kmsg() { dd if=/dev/kmsg iflag=nonblock bs=16k status=none 2>/dev/null; }
kmsg_seq() { kmsg | awk -F'[,;]' '/^[0-9]/ { s = $2 } END { print s + 0 }'; }
before=$(kmsg_seq)
printf '=== %s: %s\n' "$name" "$*"
start=$(date +%s)
"$@"
rc=$?
secs=$(( $(date +%s) - start ))

splat=$(kmsg | awk -v after="$before" -F'[,;]' '
	/^[0-9]/ { new = $2 > after; if (new) { sub(/^[^;]*;/, ""); print } }' |
	grep -E 'WARNING:|BUG:|Oops|general protection|possible circular locking|UBSAN|KASAN' || true)
if [ -n "$splat" ]; then
	printf '%s: kernel log shows a splat during the test:\n%s\n' "$name" "$splat"
	[ "$rc" -eq 0 ] && rc=1
fi
if [ "$rc" -eq 0 ]; then
	echo "$secs" > "$results/$name.pass"
	printf '=== %s: PASS (%ss)\n' "$name" "$secs"
else
	echo "$rc" > "$results/$name.fail"
	printf '=== %s: FAIL (exit %s, %ss)\n' "$name" "$rc" "$secs"
fi
exit "$rc"
