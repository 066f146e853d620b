#!/usr/bin/env bash
# The VM's contended mixes (tests/mixes/*.fio) through the simulator on
# the nullb model, at the rate the VM's fairness test uses (100 MiB/s,
# tests/vm/lib.sh FAIR_MBPS) and at issue 5's 200 MiB/s (which the
# simulator's CPU-less host can drive): cfqx must meet issue 9's targets
# on each, deterministically (same input, same output): max-min Jain >= 0.95,
# worst share >= 0.8, total >= 95% of fifo's (none); on an idle host, on
# a busy one (--freeze 6ms/3ms: the guest stands still a third of the
# time, as a host with its cores busy does to a VM), and, at t20's rate,
# with a busy guest CPU (--cpu-delay 500us: queue runs, completions and
# woken processes wait for a CPU, one in four several times as long: what
# a CI host running the VM beside other work did to t20's one-deep
# readers).  At 200 MiB/s a busy guest CPU costs cfqx more than 5% of
# fifo's throughput in the sizes mix (0.90): in the report
# (docs/benchmarks.md), not asserted.  The full seeded
# matrix of 240 scenarios is `make sim-matrix` (a report: it names the
# targets it misses).  Usage: mixes.sh CFQX_BINARY
set -euo pipefail
cfqx=$1
# t20's device rate, from where the guest takes it.
fair_mbps=$(sed -n 's/^FAIR_MBPS=//p' "$(dirname "$0")/../vm/lib.sh")
[ -n "$fair_mbps" ] || { echo "mixes: no FAIR_MBPS in tests/vm/lib.sh" >&2; exit 1; }
mixes=$(dirname "$0")/../mixes
failed=0
for host in idle busy busy-cpu; do
	host_args=()
	rates=("${fair_mbps}M" 200M)
	[ "$host" = busy ] && host_args=(--freeze 6ms/3ms)
	[ "$host" = busy-cpu ] && host_args=(--cpu-delay 500us) && rates=("${fair_mbps}M")
	for bw in "${rates[@]}"; do
	for f in "$mixes"/*.fio; do
		m="$(basename "$f" .fio) at $bw/s, $host host"
		pol=$(sed -n 's/^; *cfqx-policy: *\([a-z]*\).*/\1/p' "$f" | head -1)
		fifo=$("$cfqx" sim "$f" --device "nullb,bw=$bw" --sched fifo --policy "${pol:-uid}" "${host_args[@]}" --json | jq '.total_kib_s')
		read -r mm worst total < <("$cfqx" sim "$f" --device "nullb,bw=$bw" --sched cfqx --policy "${pol:-uid}" "${host_args[@]}" --json |
			jq -r '"\(.maxmin_jain) \(.worst_share) \(.total_kib_s)"')
		ratio=$(awk -v c="$total" -v f="$fifo" 'BEGIN {printf "%.3f", f ? c / f : 0}')
		if awk -v j="$mm" -v w="$worst" -v r="$ratio" 'BEGIN {exit !(j >= 0.95 && w >= 0.8 && r >= 0.95)}'; then
			echo "ok - $m: cfqx max-min Jain $mm, worst share $worst, total $ratio of fifo"
		else
			echo "not ok - $m: cfqx max-min Jain $mm (>= 0.95), worst share $worst (>= 0.8), total $ratio of fifo (>= 0.95)"
			failed=$((failed + 1))
		fi
	done
	done
done
exit $failed
