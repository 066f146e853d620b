#!/usr/bin/env bash
# Boots one supported Debian kernel (6.1, 6.12, 6.12-rt: scripts/
# kernels.sh) under qemu-system-x86_64 (TCG: there is no KVM here) with
# the cfqx initramfs built for it, runs one in-guest suite and returns its
# verdict.  The guest prints "CFQX-VM-VERDICT: PASS" or "... FAIL <rc>" on
# the serial console; no verdict (boot failure, panic, hang past the
# timeout) is a failure with the console's tail shown.  CFQX_VM_TESTS
# ("t10 t60") runs only those in-guest tests; CFQX_VM_SMP sets the
# guest's vCPUs (default 2, for diagnosis).  Boots of one build tree
# take turns (build/vm/.qemu.lock): two TCG guests on a small host skew
# each other's timing.
# The "cost" suite (make bench-sched's per-request cost) runs
# instruction-timed: one vCPU and -icount shift=0, so the guest's clock
# counts instructions (1 ns each) and host load cannot move its figures
# (-icount stalls SeaBIOS with two vCPUs here).
# Usage: run.sh KERNEL INITRAMFS SUITE [TIMEOUT_S]   (suite: test | bench | cost | demo)
set -uo pipefail
name=$1
initrd=$2
suite=$3
timeout_s=${4:-600}
root_dir=$(cd "$(dirname "$0")/../.." && pwd)
read -r _ kver _ < <("$root_dir/scripts/kernels.sh" "$name") || exit 1
kernel=${CFQX_VM_KERNEL:-/boot/vmlinuz-$kver}
log=$root_dir/build/vm/$name/console-$suite.log
mkdir -p "$(dirname "$log")"
tests=
for t in ${CFQX_VM_TESTS:-}; do
	ls "$root_dir"/tests/vm/"$t"-*.sh >/dev/null 2>&1 ||
		{ echo "vm: no in-guest test $t (tests/vm/$t-*.sh)" >&2; exit 2; }
	tests=${tests:+$tests,}$t
done

for f in "$kernel" "$initrd"; do
	[ -r "$f" ] || { echo "vm: $f missing (scripts/deps.sh? make vm-initramfs-$name?)" >&2; exit 1; }
done
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "vm: qemu-system-x86_64 missing (apt-get install qemu-system-x86)" >&2; exit 1; }

cpus="-smp ${CFQX_VM_SMP:-2}" timing=
[ "$suite" = cost ] && cpus="-smp 1 -icount shift=0" timing=", instruction-timed"

exec 9>"$root_dir/build/vm/.qemu.lock"
flock 9
# The guest's two vCPUs need the host's cores: TCG timing (the fairness
# test) suffers when the host is busy, so say so up front.
load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" -v n="$(nproc)" 'BEGIN{exit !(l > n * 0.5)}'; then
	echo "vm: warning: host load average $load on $(nproc) CPUs; TCG timing is skewed and the fairness figures suffer (run on an idle host)"
fi
# One boot; its console goes to $log.  Sets qrc and verdict.
boot() {
	echo "vm: booting $(basename "$kernel") (TCG$timing), suite $suite${tests:+ ($tests)}, timeout ${timeout_s}s; console: ${log#$root_dir/}"
	timeout --foreground -k 10 "$timeout_s" qemu-system-x86_64 \
		-machine q35,accel=tcg -cpu max $cpus -m 2048 \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 quiet loglevel=4 cfqx.suite=$suite${tests:+ cfqx.tests=$tests} ${CFQX_VM_APPEND:-}" \
		-nographic -no-reboot -monitor none -serial stdio -net none \
		< /dev/null 2>&1 | sed -u 's/\r//' | tee "$log"
	qrc=${PIPESTATUS[0]}
	verdict=$(grep -a 'CFQX-VM-VERDICT:' "$log" | tail -n1)
}
boot
# A kernel that panicked before it ran /init (no "== cfqx VM" banner) never
# loaded cfqx: under TCG, 6.12 has been seen to die in early boot (an int3
# in sched_clock_cpu while a secondary CPU came up).  That boot is shown
# and the guest booted once more; anything later counts.
if [ -z "$verdict" ] && [ "$qrc" -ne 124 ] && [ "$qrc" -ne 137 ] &&
	! grep -aq '== cfqx VM:' "$log"; then
	echo "vm: the guest died before it ran the suite (qemu rc $qrc; cfqx was not loaded); its console tail:" >&2
	tail -n 15 "$log" >&2
	cp "$log" "$log.boot-failed"
	echo "vm: booting once more" >&2
	boot
fi
if [ -z "$verdict" ]; then
	if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
		echo "vm: FAIL: no verdict within ${timeout_s}s (guest hung); console tail:" >&2
	else
		echo "vm: FAIL: guest ended without a verdict (boot failure or panic, qemu rc $qrc); console tail:" >&2
	fi
	tail -n 40 "$log" >&2
	exit 1
fi
echo "vm: $verdict"
case $verdict in
*PASS*) exit 0 ;;
*) rc=$(echo "$verdict" | awk '{print $NF}'); [ "$rc" -gt 0 ] 2>/dev/null || rc=1; exit "$rc" ;;
esac
