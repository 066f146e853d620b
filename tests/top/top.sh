#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `cfqx top` as a user sees it (`make test-top`, root): on a loop device
# over tmpfs, a group made under the uid policy is hidden once the policy
# is tgid (--once --json and the table say so, --all shows it again, with
# the header naming the interpolated percentiles); live on a pseudo
# terminal (script(1)), `p` switches the live policy to the next key, `s`
# changes the sort column and `q` quits with status 0.  Removes what it
# made on exit, failure or Ctrl-C; refuses to touch a loaded instance.
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
CFQX=${CFQX:-$ROOT/build/cfqx}
. "$ROOT/tests/lib/check.sh"

need_tools jq setpriv losetup script

work=$(mktemp -d /dev/shm/cfqx-toptest.XXXXXX)
topper=""
cleanup() {
	set +e
	exec 9>&- 2>/dev/null
	[ -n "$topper" ] && kill "$topper" 2>/dev/null && wait "$topper" 2>/dev/null
	cfqx_off_loop
	rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

cfqx_on_loop "$work" uid
setpriv --reuid 65534 --regid 65534 --clear-groups \
	dd if="$loop" of=/dev/null bs=64k count=16 iflag=direct status=none
"$CFQX" policy tgid >/dev/null || die "cfqx policy tgid"
dd if="$loop" of=/dev/null bs=64k count=16 iflag=direct status=none

"$CFQX" top --once --json --interval 0.2 > "$work/live.json" || die "top --json"
eq "--json: only tgid groups" \
	"$(jq -r '[.groups[].group_by] | unique | join(",")' "$work/live.json")" tgid
eq "--json: says the percentiles are interpolated" \
	"$(jq -r .percentiles "$work/live.json")" interpolated
"$CFQX" top --once --json --all --interval 0.2 > "$work/all.json"
eq "--all --json: the uid group is back" \
	"$(jq -r '[.groups[] | select(.group_by == "uid") | .id] | join(",")' "$work/all.json")" 65534
"$CFQX" top --once --interval 0.2 > "$work/live.txt"
eq "table: hidden groups named in the header" \
	"$(grep -c '(1 of other policies hidden: --all)' "$work/live.txt")" 1
eq "table: interpolation named in the header" \
	"$(grep -c 'interpolated within log2 buckets' "$work/live.txt")" 1
eq "table: no uid row" "$(grep -c 'uid 65534' "$work/live.txt")" 0
"$CFQX" top --once --all --sort group --interval 0.2 > "$work/all.txt"
eq "--all table: the uid row" "$(grep -c 'uid 65534 (nobody)' "$work/all.txt")" 1

# live on a pseudo terminal: keys p, s, q
mkfifo "$work/keys"
script -q -c "$CFQX top --interval 0.2" /dev/null < "$work/keys" \
	> "$work/tty.out" 2>&1 &
topper=$!
exec 9> "$work/keys"
drawn() { [ "$(grep -c 'sort bandwidth' "$work/tty.out")" -ge 1 ]; }
wait_for 30 drawn || die "top drew nothing: $(cat "$work/tty.out")"
printf p >&9
switched() { grep -q 'policy switched to pgid' "$work/tty.out"; }
wait_for 30 switched || say "(no 'policy switched' line seen)"
eq "key p: live policy now pgid" \
	"$("$CFQX" policy | awk '/^group_by/ { print $2 $3 }')" "tgid[pgid]"
printf s >&9
sorted() { grep -q 'sort iops' "$work/tty.out"; }
wait_for 30 sorted || true
eq "key s: next sort column" "$(sorted && echo iops)" iops
printf q >&9
wait "$topper"
eq "key q: top exits 0" "$?" 0
topper=""

finish
