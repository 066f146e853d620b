#!/usr/bin/env bash
# Runs one test command, records its verdict in build/test-results/ and
# fails it when the kernel logged a splat (WARNING, BUG, Oops, lockdep,
# sanitizer report) while it ran.  Usage: run-test.sh NAME CMD [ARG]...
set -u
name=$1
shift
results=${CFQX_RESULTS:-$(dirname "$0")/../build/test-results}
mkdir -p "$results"
rm -f "$results/$name".{pass,fail}

before=$(dmesg 2>/dev/null | wc -l)
printf '=== %s: %s\n' "$name" "$*"
start=$(date +%s)
"$@"
rc=$?
secs=$(( $(date +%s) - start ))

splat=$(dmesg 2>/dev/null | tail -n +"$((before + 1))" |
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
