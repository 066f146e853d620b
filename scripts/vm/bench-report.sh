#!/usr/bin/env bash
# Turns the lines tests/vm/bench.sh and bench-cost.sh printed on the
# bench-sched consoles into build/bench-sched.txt (tables),
# build/bench-sched.md (the same as Markdown, for docs/benchmarks.md) and
# build/bench-sched.png (max-min Jain and throughput per mix and
# scheduler):
#   FAIR|mix|sched|bytes/s|maxmin|worst|jain|per-group MiB/s
#   LAT|sched|p99_us|max_us
#   IOPS|workload|sched|round|iops   (instruction-timed guest; workload:
#                                    groups, -psync for one-deep readers)
#   BPF|mode|round|iops|bpf_ns_per_io   (the same guest)
#   BPFPROG|mode|round|program|runs_per_io_x100|ns_per_io
# Usage: bench-report.sh OUTDIR CONSOLE_LOG...
set -euo pipefail
out=$1
mkdir -p "$out"
shift
data=$out/bench-sched
cat "$@" | tr -d '\r' | grep -a -E '^(FAIR|LAT|IOPS|BPF|BPFPROG)\|' > "$data.raw" ||
	{ echo "bench-report: no bench lines in $*" >&2; exit 1; }
grep '^FAIR|' "$data.raw" > "$data.fair" || true
grep '^IOPS|' "$data.raw" > "$data.iops" || true
{
	echo "Fairness (null_blk 200 MiB/s, 200 us, groups by uid; x = got / max-min fair share):"
	printf '%-12s %-12s %8s %7s %6s %6s %7s  %s\n' mix scheduler MiB/s maxmin worst jain vs_none "per-group MiB/s"
	awk -F'|' '$3 == "none" {n[$2] = $4}
		{printf "%-12s %-12s %8.1f %7s %6s %6s %7.3f  %s\n", $2, $3, $4 / 1048576, $5, $6, $7, n[$2] ? $4 / n[$2] : 0, $8}' "$data.fair"
	echo
	echo "Sync reader under a buffered-write flood (4 KiB psync, us):"
	printf '%-12s %8s %8s\n' scheduler p99 max
	awk -F'|' '/^LAT/ {printf "%-12s %8s %8s\n", $2, $3, $4}' "$data.raw"
	echo
	echo "Per-request cost (null_blk without delay, 4 KiB randread; groups: 32 in flight from libaio, -psync: one-deep"
	echo "psync readers; instruction-timed guest: IOPS = 10^9 / instructions per I/O; mean of the rounds, spread = max / min - 1):"
	awk -F'|' '{k = $2 "," $3; sum[k] += $5; cnt[k]++; if (!(k in lo) || $5 < lo[k]) lo[k] = $5; if ($5 > hi[k]) hi[k] = $5; if (!($2 in g)) order[++ng] = $2; g[$2] = 1}
		function m(k) { return cnt[k] ? sum[k] / cnt[k] : 0 }
		function spread(k,  i, w) { w = 0; for (i in cnt) if (index(i, k ",") == 1 && hi[i] / lo[i] - 1 > w) w = hi[i] / lo[i] - 1; return w }
		END {printf "%-7s %9s %12s %9s %9s %16s %9s %14s %8s\n", "load", "none", "mq-deadline", "bfq", "cfqx", "cfqx/mq-deadline", "cfqx/bfq", "cfqx insns/IO", "spread";
		for (j = 1; j <= ng; j++) { x = order[j]; printf "%-7s %9d %12d %9d %9d %16.3f %9.3f %14d %7.2f%%\n", x, m(x ",none"), m(x ",mq-deadline"), m(x ",bfq"), m(x ",cfqx"),
			m(x ",mq-deadline") ? m(x ",cfqx") / m(x ",mq-deadline") : 0, m(x ",bfq") ? m(x ",cfqx") / m(x ",bfq") : 0,
			m(x ",cfqx") ? 1e9 / m(x ",cfqx") : 0, 100 * spread(x) }}' "$data.iops"
	echo
	echo "BPF accounting cost (same guest and device, scheduler none; instructions per I/O, mean of the rounds):"
	awk -F'|' '$1 == "BPF" {sum[$2] += $4; bpf[$2] += $5; cnt[$2]++}
		function per(k) { return cnt[k] && sum[k] ? 1e9 / (sum[k] / cnt[k]) : 0 }
		END {printf "%-11s %9s %12s %10s %14s\n", "mode", "IOPS", "insns/IO", "over none", "BPF insns/IO";
		n = split("none cfqx cfqx-getrq biolatency", M, " ");
		for (i = 1; i <= n; i++) if (cnt[M[i]]) printf "%-11s %9d %12d %10d %14d\n", M[i], sum[M[i]] / cnt[M[i]],
			per(M[i]), per(M[i]) - per("none"), bpf[M[i]] / cnt[M[i]]}' "$data.raw"
	echo
	echo "Per program (BPF instructions per I/O and per run, mean of the rounds):"
	awk -F'|' '$1 == "BPFPROG" {k = $2 " " $4; if (!(k in cnt)) order[n++] = k; cnt[k]++; runs[k] += $5; ns[k] += $6}
		END {printf "%-11s %-22s %8s %10s %10s\n", "mode", "program", "runs/IO", "insns/IO", "insns/run";
		for (i = 0; i < n; i++) {k = order[i]; split(k, p, " "); r = runs[k] / cnt[k] / 100;
			printf "%-11s %-22s %8.2f %10d %10d\n", p[1], p[2], r, ns[k] / cnt[k], r ? ns[k] / cnt[k] / r : 0}}' "$data.raw"
} > "$data.txt"
{
	echo '| mix | scheduler | MiB/s | max-min Jain | worst x | Jain | vs none | per-group MiB/s |'
	echo '|---|---|---:|---:|---:|---:|---:|---|'
	awk -F'|' '$3 == "none" {n[$2] = $4} {s = $3; if (s == "cfqx") s = "**cfqx**";
		printf "| %s | %s | %.1f | %s | %s | %s | %.3f | %s |\n", $2, s, $4 / 1048576, $5, $6, $7, n[$2] ? $4 / n[$2] : 0, $8}' "$data.fair"
} > "$data.md"
cat "$data.txt"
# A cost-only run (tests/vm/bench-cost.sh alone) has no fairness to plot.
[ -s "$data.fair" ] || { echo "bench-sched: tables $data.txt and .md (no fairness lines: no plot)"; exit 0; }

awk -F'|' 'BEGIN {split("none mq-deadline kyber bfq cfqx", S, " ")}
	{if (!($2 in seen)) {seen[$2] = 1; order[n++] = $2} m[$2","$3] = $5; t[$2","$3] = $4 / 1048576}
	END {print "mix none mq-deadline kyber bfq cfqx" > "'"$data"'.mm"; print "mix none mq-deadline kyber bfq cfqx" > "'"$data"'.tp";
	for (i = 0; i < n; i++) {k = order[i]; a = k; b = k;
		for (s = 1; s <= 5; s++) {a = a " " (m[k","S[s]] + 0); b = b " " (t[k","S[s]] + 0)}
		print a > "'"$data"'.mm"; print b > "'"$data"'.tp"}}' "$data.fair"
gnuplot <<GP
set terminal pngcairo size 1200,900 noenhanced
set output "$data.png"
set multiplot layout 2,1 title "cfqx vs none, mq-deadline, kyber, bfq (null_blk 200 MiB/s, Debian 6.1 under QEMU TCG)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside right top
set grid ytics
set ylabel "max-min Jain (x = got / fair share)"
set yrange [0:1.05]
plot for [c=2:6] "$data.mm" using c:xtic(1) title columnheader(c)
set ylabel "aggregate MiB/s"
set yrange [0:*]
plot for [c=2:6] "$data.tp" using c:xtic(1) title columnheader(c)
unset multiplot
GP
echo "bench-sched: tables build/bench-sched.txt and .md, plot build/bench-sched.png"
