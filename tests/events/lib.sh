# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the event pipeline tests (sourced): root check, a
# private bpffs directory and state directory per test, cleanup on exit,
# and assertions that print what they compared (say, eq, wait_for and
# finish come from tests/lib/check.sh).
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
. "$ROOT/tests/lib/check.sh"
BIN=$ROOT/build/tests/events
CFQX=${CFQX:-$ROOT/build/cfqx}
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
j() { jq -r "$1" "$2"; }	# j FILTER FILE
# wait_until SECS WHAT CMD...: polls CMD every 0.1 s until it succeeds;
# after SECS seconds prints "FAIL: WHAT did not happen in SECS s" and
# exits (the test cannot go on).  For conditions a test must wait for:
# never a fixed sleep that "should be enough".
wait_until() {
	local secs=$1 what=$2
	shift 2
	wait_for "$secs" "$@" || "$@" ||
		{ echo "FAIL: $what did not happen in $secs s"; exit 1; }
}
# Waits until a jq condition on a JSON file holds (up to $3 seconds).
json_holds() { [ -s "$1" ] && jq -e "$2" "$1" >/dev/null 2>&1; }
wait_json() { wait_for "${3:-30}" json_holds "$1" "$2"; }
