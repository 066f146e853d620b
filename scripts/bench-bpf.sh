#!/usr/bin/env bash
# make bench-bpf: what cfqx's BPF accounting costs per I/O, side by side
# with the tools it replaces.  fio (io_uring, 4 KiB random reads, iodepth
# 32) on a loop device over tmpfs, in rounds that alternate four modes: no
# tracing, cfqx loaded, libbpf-tools' biolatency (a latency histogram) and
# a bpftrace one-liner keeping per-uid byte sums and per-device counts;
# on a kernel with block_io_start (where cfqx starts records there) a
# fifth, cfqx-getrq (`cfqx load --start-hook getrq`), shows the bio hop
# that saves.
# Odd rounds run the modes forward, even rounds backward, so the cfqx/none
# pairs come in ABBA order.  Two figures per mode:
#   - BPF ns per completed I/O from run_time_ns (kernel.bpf_stats_enabled=1);
#     bpftrace's tracepoint: programs run on perf tracepoints, whose record
#     building is not in run_time_ns;
#   - system CPU (system + irq + softirq from /proc/stat, all CPUs) per
#     I/O, and its excess over the same round's run without tracing.
# The last line checks issue 10's targets: cfqx costs at most half of
# biolatency and less than bpftrace in both figures, and loses at most 3%
# IOPS (median of the per-round cfqx/none ratios).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CFQX=${CFQX:-$ROOT/build/cfqx}
ROUNDS=${ROUNDS:-9}
SECS=${SECS:-4}
BIOLATENCY=${BIOLATENCY:-biolatency}
MODES=(none cfqx biolatency bpftrace)

[ "$(id -u)" -eq 0 ] || { echo "bench-bpf: needs root" >&2; exit 1; }
if "$CFQX" status >/dev/null 2>&1; then
	echo "bench-bpf: cfqx is loaded already; unload it first" >&2
	exit 1
fi
for t in fio bpftool bpftrace jq "$BIOLATENCY"; do
	command -v "$t" >/dev/null ||
		{ echo "bench-bpf: $t not found (scripts/deps.sh)" >&2; exit 1; }
done
[ "$ROUNDS" -ge 9 ] ||
	echo "bench-bpf: ROUNDS=$ROUNDS: the IOPS target wants >= 9 pairs" >&2

work=$(mktemp -d /tmp/cfqx-bench.XXXXXX)
loop=""
tool_pid=""
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
hz=$(getconf CLK_TCK)
cleanup() {
	set +e
	[ -n "$tool_pid" ] && kill "$tool_pid" 2>/dev/null && wait "$tool_pid"
	"$CFQX" unload >/dev/null 2>&1
	[ -n "$loop" ] && losetup -d "$loop"
	umount "$work/tmpfs" 2>/dev/null
	rm -rf "$work"
	sysctl -qw kernel.bpf_stats_enabled="$old_stats"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir "$work/tmpfs"
mount -t tmpfs -o size=1200M tmpfs "$work/tmpfs"
truncate -s 1G "$work/tmpfs/disk.img"
loop=$(losetup --find --show "$work/tmpfs/disk.img")
dev=$(basename "$loop")
dd if=/dev/zero of="$loop" bs=1M count=1024 status=none
sysctl -qw kernel.bpf_stats_enabled=1

ios() { awk '{ print $1 + $5 }' "/sys/block/$dev/stat"; }
# System CPU so far, all CPUs, in ns: system + irq + softirq.
sys_ns() {
	awk -v hz="$hz" '$1 == "cpu" { printf "%.0f\n", ($4 + $7 + $8) * 1e9 / hz }' \
		/proc/stat
}

# Sum of run_time_ns over the programs whose ids are given.
prog_ns() {
	local sum=0 id
	for id in "$@"; do
		sum=$((sum + $(bpftool prog show id "$id" --json |
			jq '.run_time_ns // 0')))
	done
	echo "$sum"
}
prog_ids() { bpftool prog show --json | jq -r '.[].id' | sort -n; }
new_progs() { comm -13 <(echo "$1") <(prog_ids); }

# Start a tracing tool in the background; wait until it has attached at
# least @want programs.
start_tool() { # BEFORE WANT CMD...
	local before=$1 want=$2 i
	shift 2
	"$@" >/dev/null 2>&1 &
	tool_pid=$!
	for i in $(seq 200); do
		[ "$(new_progs "$before" | wc -l)" -ge "$want" ] && break
		kill -0 "$tool_pid" 2>/dev/null ||
			{ echo "bench-bpf: $1 exited" >&2; exit 1; }
		sleep 0.05
	done
	sleep 0.3	# attached after loaded
}

run_fio() {
	fio --name=bench --filename="$loop" --ioengine=io_uring --rw=randread \
		--bs=4k --iodepth=32 --direct=1 --time_based --runtime="$SECS" \
		--output-format=json | jq '.jobs[0].read.iops | floor'
}

# One measurement: MODE -> "IOPS BPF_NS_PER_IO SYS_NS_PER_IO"
measure() {
	local mode=$1 before ids ns0 io0 c0 iops ns1 io1 c1 n
	before=$(prog_ids)
	case $mode in
	cfqx)
		"$CFQX" load --dev "$dev" >/dev/null
		;;
	cfqx-getrq)
		"$CFQX" load --dev "$dev" --start-hook getrq >/dev/null
		;;
	biolatency)
		start_tool "$before" 2 "$BIOLATENCY"
		;;
	bpftrace)
		start_tool "$before" 2 bpftrace -e \
			'tracepoint:block:block_rq_issue { @bytes[uid] = sum(args->bytes); }
			tracepoint:block:block_rq_complete { @ios[args->dev] = count(); }'
		;;
	esac
	ids=$(new_progs "$before")
	ns0=$(prog_ns $ids)
	io0=$(ios)
	c0=$(sys_ns)
	iops=$(run_fio)
	c1=$(sys_ns)
	io1=$(ios)
	ns1=$(prog_ns $ids)
	case $mode in
	cfqx*) "$CFQX" unload >/dev/null ;;
	biolatency | bpftrace)
		kill -INT "$tool_pid"; wait "$tool_pid" 2>/dev/null || true
		tool_pid=""
		;;
	esac
	n=$((io1 - io0 > 0 ? io1 - io0 : 1))
	echo "$iops $(((ns1 - ns0) / n)) $(((c1 - c0) / n))"
}

median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
med() { tr ' ' '\n' <<<"$1" | grep . | median; }
# Per-round differences / ratios of two space-separated lists.
pairs() { # A B OP(- or /)
	paste <(tr ' ' '\n' <<<"$1" | grep .) <(tr ' ' '\n' <<<"$2" | grep .) |
		awk -v op="$3" 'NF == 2 { if (op == "-") print $1 - $2;
			else if ($2 > 0) printf "%.4f\n", $1 / $2 }'
}

# cfqx's start hook here; on io_start, getrq side by side
"$CFQX" load --dev "$dev" >/dev/null
hook=$("$CFQX" status --json | jq -r .start_hook)
"$CFQX" unload >/dev/null
[ "$hook" = io_start ] && MODES=(none cfqx cfqx-getrq biolatency bpftrace)
echo "bench-bpf: cfqx starts records at $hook"

declare -A iops bns cns
echo "bench-bpf: $ROUNDS rounds of ${SECS}s fio runs on $dev (tmpfs)," \
	"modes alternate (ABBA)"
for r in $(seq "$ROUNDS"); do
	order=("${MODES[@]}")
	[ $((r % 2)) -eq 0 ] && order=($(printf '%s\n' "${MODES[@]}" | tac))
	for mode in "${order[@]}"; do
		read -r i b c < <(measure "$mode")
		iops[$mode]+="$i "
		bns[$mode]+="$b "
		cns[$mode]+="$c "
		printf '  round %d %-10s %8d IOPS %6d BPF ns/IO %6d sys ns/IO\n' \
			"$r" "$mode" "$i" "$b" "$c"
	done
done

none_iops=$(med "${iops[none]}")
declare -A bpf over
printf '\n| mode | median IOPS | IOPS vs none | BPF ns per I/O (run_time_ns) | system CPU ns per I/O | over none |\n'
printf '|---|---:|---:|---:|---:|---:|\n'
for mode in "${MODES[@]}"; do
	m=$(med "${iops[$mode]}")
	c=$(med "${cns[$mode]}")
	if [ "$mode" = none ]; then
		bpf[$mode]=-
		over[$mode]=-
	else
		bpf[$mode]=$(med "${bns[$mode]}")
		# paired with the same round's untraced run
		over[$mode]=$(pairs "${cns[$mode]}" "${cns[none]}" - | median)
	fi
	printf '| %s | %d | %.3f | %s | %s | %s |\n' "$mode" "$m" \
		"$(awk -v a="$m" -v b="$none_iops" 'BEGIN { print a / b }')" \
		"${bpf[$mode]}" "$c" "${over[$mode]}"
done
echo "(bpftrace: its perf tracepoint record building is not in run_time_ns;" \
	"system CPU counts it)"

ratios=$(pairs "${iops[cfqx]}" "${iops[none]}" /)
mr=$(median <<<"$ratios")
loss=$(awk -v r="$mr" 'BEGIN { printf "%.1f", (1 - r) * 100 }')
printf '\nper-pair IOPS ratio cfqx/none: %s\nmedian: %s (loss %s%%)\n' \
	"$(echo $ratios)" "$mr" "$loss"

fails=()
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
half() { awk -v a="$1" 'BEGIN { print a / 2 }'; }
le "${bpf[cfqx]}" "$(half "${bpf[biolatency]}")" ||
	fails+=("BPF ns ${bpf[cfqx]} > 0.5x biolatency ${bpf[biolatency]}")
lt "${bpf[cfqx]}" "${bpf[bpftrace]}" ||
	fails+=("BPF ns ${bpf[cfqx]} >= bpftrace ${bpf[bpftrace]}")
le "${over[cfqx]}" "$(half "${over[biolatency]}")" ||
	fails+=("CPU ns ${over[cfqx]} > 0.5x biolatency ${over[biolatency]}")
lt "${over[cfqx]}" "${over[bpftrace]}" ||
	fails+=("CPU ns ${over[cfqx]} >= bpftrace ${over[bpftrace]}")
le "$loss" 3 || fails+=("IOPS loss $loss% > 3%")
if [ ${#fails[@]} -eq 0 ]; then
	echo "targets: met"
else
	echo "targets: not met ($(IFS=';'; echo "${fails[*]}" | sed 's/;/; /g'))"
fi
