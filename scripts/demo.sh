#!/usr/bin/env bash
# The main job, end to end.  Accounting: make a loop device on a temp
# file, load cfqx on it, run competing workloads as several users, process
# groups and cgroups (sequential and random, reads and writes), watch `cfqx
# top` live while the grouping policy switches uid -> pgid -> cgroup, print
# a per-group summary.  Enforcement (scripts/demo-enforcement.sh): the same
# kind of competition on one device under none and then the cfqx elevator,
# natively or in the QEMU guest, ending with one `enforcement:` line per
# scheduler and a plot.  Removes everything it made, also on Ctrl-C or
# failure.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CFQX=${CFQX:-$ROOT/build/cfqx}
PHASE_SECS=${CFQX_DEMO_PHASE_SECS:-8}
USERS=(cfqxdemo1 cfqxdemo2 cfqxdemo3)

[ "$(id -u)" -eq 0 ] || { echo "demo: needs root (sudo make demo)" >&2; exit 1; }

work=$(mktemp -d /tmp/cfqx-demo.XXXXXX)
loop=""
cgroot=""
made_users=()
pids=()

cleanup() {
	set +e
	for p in "${pids[@]}"; do
		kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	"$CFQX" unload >/dev/null 2>&1
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	if [ -n "$cgroot" ]; then
		for d in "$cgroot"/*/; do
			[ -d "$d" ] && rmdir "$d" 2>/dev/null
		done
		rmdir "$cgroot" 2>/dev/null
	fi
	for u in "${made_users[@]}"; do userdel "$u" 2>/dev/null; done
	rm -rf "$work"
	pids=() loop="" cgroot="" made_users=()	# done: a second call is a no-op
}
trap cleanup EXIT
trap 'echo; echo "demo: interrupted, cleaning up"; exit 130' INT TERM

if "$CFQX" status >/dev/null 2>&1; then
	echo "demo: cfqx is already loaded; run 'sudo build/cfqx unload' first" >&2
	trap - EXIT
	rm -rf "$work"
	exit 1
fi

echo "== making a 1 GiB loop device on $work/disk.img"
truncate -s 1G "$work/disk.img"
loop=$(losetup --find --show "$work/disk.img")
dev=$(basename "$loop")
echo "   $loop (scheduler: $(cat /sys/block/$dev/queue/scheduler))"
# Fill it once so reads hit real data, not holes only.
dd if=/dev/urandom of="$loop" bs=1M count=256 oflag=direct status=none

echo "== users, process groups and cgroups"
for u in "${USERS[@]}"; do
	if ! id "$u" >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /usr/sbin/nologin "$u"
		made_users+=("$u")
	fi
done
chmod 0666 "$loop"
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cgroot="$cg2/cfqx-demo.$$"
mkdir "$cgroot"

echo "== loading cfqx on $dev, policy uid"
"$CFQX" load --dev "$dev" --policy uid

# One workload: NAME USER CGROUP FIO-ARGS...; each in its own session
# (process group) and cgroup.
start_job() {
	local name=$1 user=$2 cg=$3
	shift 3
	mkdir -p "$cgroot/$cg"
	setsid bash -c '
		echo $$ > "$1/cgroup.procs"; shift
		exec setpriv --reuid="$1" --regid="$1" --clear-groups -- \
			fio --name="$2" --filename="$3" --direct=1 --invalidate=0 \
			--time_based --runtime=3600 --output=/dev/null "${@:4}"
	' _ "$cgroot/$cg" "$user" "$name" "$loop" "$@" &
	pids+=($!)
	printf '   %-10s user %-10s cgroup %-6s %s\n' "$name" "$user" "$cg" "$*"
}
start_job seqread  "${USERS[0]}" web  --rw=read --bs=128k --size=256m
start_job randread "${USERS[1]}" db   --rw=randread --bs=4k --size=256m \
	--ioengine=libaio --iodepth=8
start_job seqwrite "${USERS[2]}" db   --rw=write --bs=64k --offset=512m \
	--size=256m
start_job randwrite "${USERS[2]}" batch --rw=randwrite --bs=4k \
	--offset=768m --size=256m --ioengine=libaio --iodepth=4

show_top() {
	echo
	echo "== cfqx top, policy $1 (${PHASE_SECS}s)"
	timeout --foreground "$PHASE_SECS" "$CFQX" top --interval 1 || true
}

sleep 1
show_top uid
"$CFQX" policy pgid
show_top pgid
"$CFQX" policy cgroup
show_top cgroup

echo
echo "== summary since load (cfqx stats)"
"$CFQX" stats
echo
echo "== drop counters (cfqx status)"
"$CFQX" status
cleanup

"$ROOT/scripts/demo-enforcement.sh"
