# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the event pipeline tests (sourced): root check, a
# private bpffs directory and state directory per test, cleanup on exit,
# and assertions that print what they compared.
set -u
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BIN=$ROOT/build/tests/events
CFQX=${CFQX:-$ROOT/build/cfqx}
FAILS=0
CLEANUP=()

[ "$(id -u)" -eq 0 ] || { echo "SKIP-FAIL: needs root (BPF, uevents)"; exit 1; }
mountpoint -q /sys/fs/bpf || { echo "FAIL: bpffs not mounted on /sys/fs/bpf"; exit 1; }

MAPS=/sys/fs/bpf/cfqx-evtest-$$
STATE=$(mktemp -d /tmp/cfqx-evtest.XXXXXX)

cleanup() {
	local i
	for ((i = ${#CLEANUP[@]} - 1; i >= 0; i--)); do
		eval "${CLEANUP[i]}" >/dev/null 2>&1 || true
	done
	rm -rf "$MAPS" "$STATE"
}
trap cleanup EXIT
on_exit() { CLEANUP+=("$*"); }

say() { printf '  %s\n' "$*"; }
check() {	# check DESCRIPTION CONDITION...
	local what=$1
	shift
	if "$@"; then
		say "ok: $what"
	else
		say "FAIL: $what"
		FAILS=$((FAILS + 1))
	fi
}
eq() {		# eq DESCRIPTION A B
	if [ "$2" = "$3" ]; then
		say "ok: $1 ($2)"
	else
		say "FAIL: $1: $2 != $3"
		FAILS=$((FAILS + 1))
	fi
}
j() { jq -r "$1" "$2"; }	# j FILTER FILE
finish() {
	if [ "$FAILS" -ne 0 ]; then
		echo "$FAILS check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}
# wait_until SECS WHAT CMD...: polls CMD every 0.1 s until it succeeds;
# after SECS seconds prints "FAIL: WHAT did not happen in SECS s" and
# exits (the test cannot go on).  For conditions a test must wait for:
# never a fixed sleep that "should be enough".
wait_until() {
	local secs=$1 what=$2 i
	shift 2
	for ((i = 0; i < secs * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	"$@" && return 0
	echo "FAIL: $what did not happen in $secs s"
	exit 1
}
# Waits until a jq condition on a JSON file holds (up to $3 seconds).
wait_json() {
	local file=$1 cond=$2 secs=${3:-30} i
	for ((i = 0; i < secs * 10; i++)); do
		[ -s "$file" ] && jq -e "$cond" "$file" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
