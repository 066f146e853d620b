# SPDX-License-Identifier: GPL-2.0
# Helpers for the root shell tests of the cfqx command (sourced by
# tests/metrics/ and tests/top/): printed checks that say what they
# compared, a polling wait with a deadline instead of fixed sleeps, the
# test's own cfqx instance on its own loop device, and the verdict.  The
# caller sets its cleanup trap and calls cfqx_off_loop from it.
set -u
FAILS=0

say() { printf '  %s\n' "$*"; }
eq() {		# eq DESCRIPTION GOT WANT
	if [ "$2" = "$3" ]; then
		say "ok: $1 ($2)"
	else
		say "FAIL: $1: got '$2', want '$3'"
		FAILS=$((FAILS + 1))
	fi
}
die() { say "FAIL: $*"; exit 1; }
wait_for() {	# wait_for SECS CMD...: until CMD succeeds, at most SECS
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
need_tools() {	# need_tools TOOL...: root and every tool, or fail
	local t
	[ "$(id -u)" -eq 0 ] || die "needs root (BPF, loop devices)"
	for t in "$@"; do
		command -v "$t" >/dev/null || die "$t missing (scripts/deps.sh installs it)"
	done
}
# cfqx_on_loop DIR POLICY: a 64 MiB loop device over DIR/disk (tmpfs),
# cfqx loaded on it alone, readable by the test's unprivileged users;
# sets $loop and $dev.  Refuses to touch an instance it did not load.
loop="" dev="" loaded=0
cfqx_on_loop() {
	"$CFQX" status >/dev/null 2>&1 &&
		die "a cfqx instance is loaded already; not touching it"
	truncate -s 64M "$1/disk"
	loop=$(losetup -f --show "$1/disk") || die "losetup"
	dev=${loop#/dev/}
	"$CFQX" load --dev "$dev" --policy "$2" >/dev/null || die "cfqx load"
	loaded=1
	chmod 0666 "$loop"	# restored by cfqx_off_loop
}
cfqx_off_loop() {
	[ "$loaded" = 1 ] && "$CFQX" unload >/dev/null 2>&1
	loaded=0
	if [ -n "$loop" ]; then
		chmod 0660 "$loop"
		losetup -d "$loop"
	fi
	loop=""
}
finish() {
	if [ "$FAILS" -ne 0 ]; then
		echo "$FAILS check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}
