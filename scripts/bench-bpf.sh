#!/usr/bin/env bash
# make bench-bpf: what cfqx's BPF accounting costs per I/O.  fio (io_uring,
# 4 KiB random reads, iodepth 32) on a loop device over tmpfs, in rounds
# that alternate: no tracing / cfqx loaded / a bpftrace reference one-liner
# keeping per-uid byte sums and per-device counts.  With
# kernel.bpf_stats_enabled=1 the kernel sums each program's run time, so the
# primary figure (IOPS here swing by +-15%) is BPF ns per completed I/O.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CFQX=${CFQX:-$ROOT/build/cfqx}
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}

[ "$(id -u)" -eq 0 ] || { echo "bench-bpf: needs root" >&2; exit 1; }
if "$CFQX" status >/dev/null 2>&1; then
	echo "bench-bpf: cfqx is loaded already; unload it first" >&2
	exit 1
fi

work=$(mktemp -d /tmp/cfqx-bench.XXXXXX)
loop=""
bt_pid=""
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	set +e
	[ -n "$bt_pid" ] && kill "$bt_pid" 2>/dev/null && wait "$bt_pid"
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

run_fio() {
	fio --name=bench --filename="$loop" --ioengine=io_uring --rw=randread \
		--bs=4k --iodepth=32 --direct=1 --time_based --runtime="$SECS" \
		--output-format=json | jq '.jobs[0].read.iops | floor'
}

# One measurement: MODE -> "IOPS NS_PER_IO"
measure() {
	local mode=$1 before ids ns0 io0 iops ns1 io1
	before=$(prog_ids)
	case $mode in
	cfqx)
		"$CFQX" load --dev "$dev" >/dev/null
		;;
	bpftrace)
		bpftrace -e 'tracepoint:block:block_rq_issue { @bytes[uid] = sum(args->bytes); }
			tracepoint:block:block_rq_complete { @ios[args->dev] = count(); }' \
			>/dev/null 2>&1 &
		bt_pid=$!
		for _ in $(seq 100); do
			[ "$(comm -13 <(echo "$before") <(prog_ids) | wc -l)" -ge 2 ] && break
			sleep 0.1
		done
		;;
	esac
	ids=$(comm -13 <(echo "$before") <(prog_ids))
	ns0=$(prog_ns $ids)
	io0=$(ios)
	iops=$(run_fio)
	ns1=$(prog_ns $ids)
	io1=$(ios)
	case $mode in
	cfqx) "$CFQX" unload >/dev/null ;;
	bpftrace) kill "$bt_pid"; wait "$bt_pid" 2>/dev/null || true; bt_pid="" ;;
	esac
	echo "$iops $(( (ns1 - ns0) / ((io1 - io0) > 0 ? (io1 - io0) : 1) ))"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

declare -A iops ns
echo "bench-bpf: $ROUNDS rounds of ${SECS}s fio runs on $dev (tmpfs), modes alternate"
for r in $(seq "$ROUNDS"); do
	for mode in none cfqx bpftrace; do
		read -r i n < <(measure "$mode")
		iops[$mode]+="$i "
		ns[$mode]+="$n "
		printf '  round %d %-8s %8d IOPS %6d ns/IO\n' "$r" "$mode" "$i" "$n"
	done
done

med() { tr ' ' '\n' <<<"$1" | grep . | median; }
none_iops=$(med "${iops[none]}")
printf '\n| mode | median IOPS | IOPS vs none | BPF ns per I/O |\n|---|---|---|---|\n'
for mode in none cfqx bpftrace; do
	m=$(med "${iops[$mode]}")
	printf '| %s | %d | %.3f | %s |\n' "$mode" "$m" \
		"$(awk -v a="$m" -v b="$none_iops" 'BEGIN { print a / b }')" \
		"$([ "$mode" = none ] && echo - || med "${ns[$mode]}")"
done
# IOPS ratio of each alternating pair, then its median.
ratios=$(paste <(tr ' ' '\n' <<<"${iops[cfqx]}") <(tr ' ' '\n' <<<"${iops[none]}") |
	awk 'NF == 2 && $2 > 0 { printf "%.4f\n", $1 / $2 }')
mr=$(median <<<"$ratios")
printf '\nper-pair IOPS ratio cfqx/none: %s\nmedian: %s (loss %.1f%%)\n' \
	"$(echo $ratios)" "$mr" "$(awk -v r="$mr" 'BEGIN { print (1 - r) * 100 }')"
