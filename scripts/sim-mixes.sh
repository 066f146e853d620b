#!/usr/bin/env bash
# The simulator's prediction for each VM mix (tests/mixes/*.fio, the job
# files the VM benchmarks run with fio): per mix and scheduler (fifo for
# none, cfqx), max-min Jain, worst share, total and each group's MiB/s and
# x on the nullb model at t20's 100 MiB/s (tests/vm/lib.sh FAIR_MBPS), for
# comparison with what the VM measures.  The grouping key comes from a
# "; cfqx-policy: KEY" line in the file (default uid).
# Usage: sim-mixes.sh CFQX_BINARY [MIX.fio...]
set -euo pipefail
cfqx=$1
# t20's device rate, from where the guest takes it.
fair_mbps=$(sed -n 's/^FAIR_MBPS=//p' "$(dirname "$0")/../tests/vm/lib.sh")
[ -n "$fair_mbps" ] || { echo "sim-mixes: no FAIR_MBPS in tests/vm/lib.sh" >&2; exit 1; }
shift
[ $# -gt 0 ] || set -- "$(dirname "$0")"/../tests/mixes/*.fio
printf '%-18s %-5s %-7s %7s %6s %9s  %s\n' mix sched policy maxmin worst "MiB/s" "per group: MiB/s x"
for f in "$@"; do
	[ -e "$f" ] || { echo "sim-mixes: no mix files ($f)"; exit 1; }
	pol=$(sed -n 's/^; *cfqx-policy: *\([a-z]*\).*/\1/p' "$f" | head -1)
	for s in fifo cfqx; do
		"$cfqx" sim "$f" --device "nullb,bw=${fair_mbps}M" --sched "$s" --policy "${pol:-uid}" --json |
			jq -r --arg m "$(basename "$f" .fio)" --arg s "$s" '
				"\($m) \($s) \(.policy) \(.maxmin_jain) \(.worst_share) \(.total_kib_s / 1024) " +
				([.groups[] | "\(.name | gsub(" "; "_"))=\(.kib_s / 1024 | floor):\(.share * 100 | floor / 100)"] | join(" "))' |
			awk '{printf "%-18s %-5s %-7s %7.3f %6.3f %9.1f ", $1, $2, $3, $4, $5, $6;
				for (i = 7; i <= NF; i++) printf " %s", $i; print ""}'
	done
done
