#!/usr/bin/env bash
# Turns the lines tests/vm/bench.sh printed on the bench-sched console into
# build/bench-sched.txt (tables), build/bench-sched.md (the same as
# Markdown, for docs/benchmarks.md) and build/bench-sched.png (max-min Jain
# and throughput per mix and scheduler):
#   FAIR|mix|sched|bytes/s|maxmin|worst|jain|per-group MiB/s
#   LAT|sched|p99_us|max_us
#   IOPS|groups|sched|round|iops
# Usage: bench-report.sh CONSOLE_LOG OUTDIR
set -euo pipefail
log=$1
out=$2
data=$out/bench-sched
tr -d '\r' < "$log" | grep -a -E '^(FAIR|LAT|IOPS)\|' > "$data.raw" ||
	{ echo "bench-report: no bench lines in $log" >&2; exit 1; }
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
	echo "Per-request cost (null_blk without delay, 4 KiB randread, 32 in flight; medians of 3 rotated rounds):"
	awk -F'|' '{v[$2","$3] = v[$2","$3] " " $5; r[$2","$4","$3] = $5; n[$2] = 1}
		function med(s,  a, k, i, j, t) { k = split(s, a, " ");
			for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return a[int((k + 1) / 2)] }
		function rmed(g, x, y,  i, s) { s = ""; for (i = 1; i <= 3; i++) if (r[g","i","y]) s = s " " r[g","i","x] / r[g","i","y]; return med(s) }
		END {printf "%-7s %12s %12s %12s %16s %10s\n", "groups", "mq-deadline", "bfq", "cfqx", "cfqx/mq-deadline", "cfqx/bfq";
		for (g in n) printf "%-7s %12d %12d %12d %16.3f %10.3f\n", g, med(v[g",mq-deadline"]), med(v[g",bfq"]), med(v[g",cfqx"]), rmed(g, "cfqx", "mq-deadline"), rmed(g, "cfqx", "bfq")}' "$data.iops"
} > "$data.txt"
{
	echo '| mix | scheduler | MiB/s | max-min Jain | worst x | Jain | vs none | per-group MiB/s |'
	echo '|---|---|---:|---:|---:|---:|---:|---|'
	awk -F'|' '$3 == "none" {n[$2] = $4} {s = $3; if (s == "cfqx") s = "**cfqx**";
		printf "| %s | %s | %.1f | %s | %s | %s | %.3f | %s |\n", $2, s, $4 / 1048576, $5, $6, $7, n[$2] ? $4 / n[$2] : 0, $8}' "$data.fair"
} > "$data.md"
cat "$data.txt"

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
