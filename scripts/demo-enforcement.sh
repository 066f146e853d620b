#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The enforcement part of `make demo` (called by scripts/demo.sh after the
# BPF accounting part): the same competing groups on one device, first
# under `none`, then under the cfqx elevator, side by side.  Where the
# running kernel can load modules and is one cfqx supports, cfqx.ko (and
# null_blk) are loaded directly; otherwise the workload runs in the QEMU
# guest with Debian's 6.1 kernel that the VM tests use (scripts/vm/), and
# the screen says so.  The workload and its null_blk device are
# scripts/vm/demo-enforce.sh's; the figures are DESIGN.md's max-min
# fairness, computed by `cfqx fairness` from each group's measured solo
# bandwidth (its demand).  Prints per-group MB/s, share against the fair
# share and x = got / fair, one line per scheduler
#   enforcement: <scheduler> jain <x.xx> worst <x.xx> total <MB/s> MB/s
# and writes build/demo-enforcement.png.  Ctrl-C or a failure removes what
# it started or loaded (the guest, fio, the null_blk device, modules).
# CFQX_DEMO_REPLAY=LOG redoes the figures and the plot from a saved log.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CFQX=${CFQX:-$ROOT/build/cfqx}
RT=${CFQX_DEMO_RUNTIME:-5}		# seconds per fio run (7 runs)
VM_KERNEL=6.1
PNG=$ROOT/build/demo-enforcement.png
GROUPS_=(alice bob greedy)

[ "$(id -u)" -eq 0 ] || { echo "demo: needs root (sudo make demo)" >&2; exit 1; }
work=$(mktemp -d /tmp/cfqx-demo-enf.XXXXXX)
runner=""		# the session running the workload (guest or native)
loaded_mods=()		# modules this script loaded, natively

cleanup() {
	set +e
	if [ -n "$runner" ]; then
		kill -TERM -- "-$runner" 2>/dev/null
		wait "$runner" 2>/dev/null
	fi
	# native leftovers of a runner that was killed before its own trap
	if [ -d /sys/kernel/config/nullb/cfqxdemo ]; then
		echo none > /sys/block/cfqxdemo/queue/scheduler 2>/dev/null
		echo 0 > /sys/kernel/config/nullb/cfqxdemo/power 2>/dev/null
		rmdir /sys/kernel/config/nullb/cfqxdemo 2>/dev/null
	fi
	[ "${mounted_configfs:-0}" = 1 ] && umount /sys/kernel/config
	for ((i = ${#loaded_mods[@]} - 1; i >= 0; i--)); do
		rmmod "${loaded_mods[i]}" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM	# scripts/demo.sh says so

# build TARGET: one make target, quietly (the log on failure)
build() {
	echo "   building $1"
	if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" -j2 "$1" \
		> "$work/build.log" 2>&1; then
		tail -n 20 "$work/build.log" >&2
		echo "demo: make $1 failed" >&2
		exit 1
	fi
}

# The supported kernel name of the running kernel ("" if none).
native_name() {
	local name rel
	[ -e /proc/modules ] || return 0
	while read -r name rel _; do
		[ "$rel" = "$(uname -r)" ] && { echo "$name"; return 0; }
	done < <("$ROOT/scripts/kernels.sh" 2>/dev/null)
	return 0
}

# load MODULE [ARGS]: modprobe unless loaded (or built in), remembered
# for cleanup.
load() {
	grep -q "^$1 " /proc/modules && return 0
	[ -d "/sys/module/$1" ] && return 0
	modprobe "$@" || return 1
	loaded_mods+=("$1")
}

mounted_configfs=0
mount_configfs() {
	mountpoint -q /sys/kernel/config && return 0
	mount -t configfs configfs /sys/kernel/config && mounted_configfs=1
}

echo
echo "== enforcement: the same competition on one device, under none and then under the cfqx elevator"
echo "   null_blk device: 200 MiB/s, 200 us completions, depth 64; 64 KiB random reads, ${RT}s per run"
echo "   alice  (uid 1001): three one-deep readers"
echo "   bob    (uid 1002): one one-deep reader"
echo "   greedy (uid 1003): one reader keeping 16 requests in flight"
echo "   each group alone first (its demand), then all three: none, cfqx, cfqx, none"
name=$(native_name)
native=0
if [ -n "${CFQX_DEMO_REPLAY:-}" ]; then
	# the figures and plot again from a saved log (a guest console or
	# a native run's output), nothing run
	echo "   replaying $CFQX_DEMO_REPLAY"
	cp "$CFQX_DEMO_REPLAY" "$work/run.log"
elif [ -n "$name" ]; then
	build "kmod-$name"
	ko=$ROOT/build/kmod/$(uname -r)/cfqx.ko
	if load configfs && mount_configfs && load null_blk nr_devices=0 &&
	   { grep -q '^cfqx ' /proc/modules || { insmod "$ko" && loaded_mods+=(cfqx); }; }; then
		native=1
		echo "   this kernel ($(uname -r)) loads modules: cfqx.ko loaded directly"
	else
		echo "   this kernel ($(uname -r)) refused a module (signing? lockdown?): using the QEMU guest"
	fi
fi
if [ -n "${CFQX_DEMO_REPLAY:-}" ]; then
	:
elif [ $native = 1 ]; then
	setsid -w sh "$ROOT/scripts/vm/demo-enforce.sh" native "$RT" \
		> "$work/run.log" 2>&1 &
else
	[ -n "$name" ] || echo "   this kernel ($(uname -r)) cannot load modules: running this part in a QEMU guest" \
		"with Debian's $VM_KERNEL kernel, as the VM tests do (software emulation, TCG)"
	build "vm-initramfs-$VM_KERNEL"
	setsid -w env CFQX_VM_APPEND="cfqx.demo_rt=$RT" "$ROOT/scripts/vm/run.sh" \
		"$VM_KERNEL" "$ROOT/build/vm/$VM_KERNEL/initramfs.cpio" demo 300 \
		> "$work/run.log" 2>&1 &
fi
rc=0
if [ -z "${CFQX_DEMO_REPLAY:-}" ]; then
	runner=$!
	# progress lines as they come
	tail -n +1 -f --pid="$runner" "$work/run.log" 2>/dev/null |
		grep --line-buffered -a -E '^(demo:|vm: warning|vm: booting)' |
		sed -u 's/^/   /' || true
	wait "$runner" || rc=$?
	runner=""
fi
if [ $rc -ne 0 ] || ! grep -q '^DEMO|' "$work/run.log"; then
	tail -n 30 "$work/run.log" >&2
	echo "demo: the enforcement part failed (exit $rc)" >&2
	exit 1
fi

# ---- figures ---------------------------------------------------------
grep -a '^DEMO|' "$work/run.log" | tr -d '\r' > "$work/demo.dat"
# per group: solo bytes/s; per scheduler and group: mean over its runs
mean() {	# mean PHASE-REGEX SCHED GROUP
	awk -F'|' -v p="$1" -v s="$2" -v g="$3" \
		'$2 ~ p && $3 == s && $4 == g { t += $5; n++ }
		END { if (n) printf "%.0f\n", t / n; else print "missing" }' "$work/demo.dat"
}
# the device's capacity: the most any one run moved (a solo run is one
# group's, a runN all groups')
capacity=$(awk -F'|' '{ k = $2 == "solo" ? $2 "|" $4 : $2; t[k] += $5 }
	END { for (k in t) if (t[k] > m) m = t[k]; printf "%.0f\n", m }' "$work/demo.dat")
demand=""
for g in "${GROUPS_[@]}"; do demand="$demand $(mean '^solo$' none "$g")"; done
scheds=(none cfqx)
for s in "${scheds[@]}"; do
	got=""
	for g in "${GROUPS_[@]}"; do got="$got $(mean '^run' "$s" "$g")"; done
	case "$demand $got" in *missing*) echo "demo: incomplete results" >&2; exit 1 ;; esac
	"$CFQX" fairness --demand "${demand# }" --got "${got# }" \
		--capacity "$capacity" --names "${GROUPS_[*]}" --json > "$work/$s.json"
done

echo
printf '   capacity %.1f MB/s (the most any run moved); fair = max-min fair share of the demands\n' \
	"$(awk -v c="$capacity" 'BEGIN { print c / 1e6 }')"
printf '   %-8s %7s %14s | %-20s | %-20s\n' "" alone "max-min fair" none cfqx
printf '   %-8s %7s %14s | %6s %6s %6s | %6s %6s %6s\n' group MB/s "MB/s (share)" \
	MB/s share x MB/s share x
jq -r -s --argjson cap "$capacity" '
	(.[0].groups | length) as $n |
	[.[] | ([.groups[].got] | add)] as $tot |
	range($n) as $i |
	[.[0].groups[$i].name, .[0].groups[$i].demand / 1e6,
	 .[0].groups[$i].fair / 1e6, 100 * .[0].groups[$i].fair / $cap,
	 .[0].groups[$i].got / 1e6, 100 * .[0].groups[$i].got / $tot[0], .[0].groups[$i].share,
	 .[1].groups[$i].got / 1e6, 100 * .[1].groups[$i].got / $tot[1], .[1].groups[$i].share] |
	@tsv' "$work/none.json" "$work/cfqx.json" |
	awk -F'\t' '{ printf "   %-8s %7.1f %7.1f (%3.0f%%) | %6.1f %5.0f%% %6.2f | %6.1f %5.0f%% %6.2f\n",
		$1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
lines=()
for s in "${scheds[@]}"; do
	lines+=("$(jq -r '"\(.maxmin_jain) \(.worst_share) \([.groups[].got] | add)"' "$work/$s.json" |
		awk -v s="$s" '{ printf "enforcement: %s jain %.2f worst %.2f total %.1f MB/s\n", s, $1, $2, $3 / 1e6 }')")
done

# ---- plot ------------------------------------------------------------
jq -r -s '{alice: "alice: 3 readers", bob: "bob: 1 reader", greedy: "greedy: 16 deep"} as $names |
	(.[0].groups | length) as $n | range($n) as $i |
	[$names[.[0].groups[$i].name] // .[0].groups[$i].name, .[0].groups[$i].fair / 1e6,
	 .[0].groups[$i].got / 1e6, .[1].groups[$i].got / 1e6] | @tsv' \
	"$work/none.json" "$work/cfqx.json" > "$work/plot.dat"
where="Debian $VM_KERNEL under QEMU (TCG)"
[ $native = 1 ] && where="$(uname -r), native"
mkdir -p "$(dirname "$PNG")"
if gnuplot <<GP 2> "$work/gnuplot.err"; then
set terminal pngcairo size 1000,600 noenhanced
set output "$PNG"
set title "cfqx demo: 64 KiB random reads on null_blk (200 MiB/s), $where\n${lines[0]}\n${lines[1]}"
set datafile separator "\t"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside right top
set grid ytics
set ylabel "MB/s"
set yrange [0:*]
plot "$work/plot.dat" using 2:xtic(1) title "max-min fair share", \
     "" using 3 title "none", "" using 4 title "cfqx elevator"
GP
	png_note="plot: ${PNG#$ROOT/}"
else
	png_note="plot: not written ($(head -n 1 "$work/gnuplot.err"))"
fi
echo "   $png_note"
echo
printf '%s\n' "${lines[@]}"
