#!/usr/bin/env bash
# Turns the BENCH lines of the bench-sched console log into a table
# (build/bench-sched.txt), a Markdown table for the README
# (build/bench-sched.md) and a gnuplot PNG (build/bench-sched.png): Jain's
# index and aggregate throughput per scenario and scheduler.
# Usage: bench-report.sh CONSOLE_LOG OUTDIR
set -euo pipefail
log=$1
out=$2
data=$out/bench-sched.dat
grep -a '^BENCH|' "$log" | tr -d '\r' > "$data.raw" || { echo "bench-report: no BENCH lines in $log" >&2; exit 1; }
{
	printf '%-14s %-7s %-12s %8s %6s %8s %8s  %s\n' scenario policy scheduler MiB/s jain p99_us max_us "per-group MiB/s"
	awk -F'|' '{printf "%-14s %-7s %-12s %8s %6s %8s %8s  %s\n", $2, $3, $4, $5, $6, $7, $8, $9}' "$data.raw"
} > "$out/bench-sched.txt"
{
	echo '| scenario | policy | scheduler | MiB/s | Jain | sync p99 us | sync max us | per-group MiB/s |'
	echo '|---|---|---|---:|---:|---:|---:|---|'
	awk -F'|' '{s=$4; if (s=="cfqx") s="**cfqx**"; printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $3, s, $5, $6, $7, $8, $9}' "$data.raw"
} > "$out/bench-sched.md"
cat "$out/bench-sched.txt"

# Plot: one cluster per scenario/policy, one bar per scheduler.
awk -F'|' '{k=$2"/"$3; if (!(k in seen)) {seen[k]=1; order[n++]=k}
	j[k","$4]=$6; t[k","$4]=$5}
	END {print "case none mq-deadline kyber bfq cfqx";
	for (i=0;i<n;i++) {k=order[i]; printf "%s", k;
		split("none mq-deadline kyber bfq cfqx", S, " ");
		for (s=1;s<=5;s++) printf " %s", (k","S[s]) in j ? j[k","S[s]] : 0; print ""}}' \
	"$data.raw" > "$data.jain"
awk -F'|' '{k=$2"/"$3; if (!(k in seen)) {seen[k]=1; order[n++]=k}
	t[k","$4]=$5}
	END {print "case none mq-deadline kyber bfq cfqx";
	for (i=0;i<n;i++) {k=order[i]; printf "%s", k;
		split("none mq-deadline kyber bfq cfqx", S, " ");
		for (s=1;s<=5;s++) printf " %s", (k","S[s]) in t ? t[k","S[s]] : 0; print ""}}' \
	"$data.raw" > "$data.tput"
gnuplot <<GP
set terminal pngcairo size 1200,900 noenhanced
set output "$out/bench-sched.png"
set multiplot layout 2,1 title "cfqx vs none, mq-deadline, kyber, bfq (null_blk 200 MiB/s, Debian 6.1 under QEMU TCG)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside right top
set grid ytics
set xtics rotate by -20
set ylabel "Jain's index between groups"
set yrange [0:1.05]
plot for [c=2:6] "$data.jain" using c:xtic(1) title columnheader(c)
set ylabel "aggregate MiB/s"
set yrange [0:*]
plot for [c=2:6] "$data.tput" using c:xtic(1) title columnheader(c)
unset multiplot
GP
echo "bench-sched: table build/bench-sched.txt, markdown build/bench-sched.md, plot build/bench-sched.png"
