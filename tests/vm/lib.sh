# Shared helpers of the in-guest cfqx tests (busybox sh): module loading,
# null_blk devices through configfs, scheduler switching, fio runs parsed
# with jq, Jain's index.  Sourced by the test scripts.
NB_CFG=/sys/kernel/config/nullb
FIO_OUT=/tmp/fio
mkdir -p $FIO_OUT

say() { echo "  $*"; }
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; FAILED=$((${FAILED:-0} + 1)); }
check() { # check DESCRIPTION CMD...
	local d=$1; shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}

load_modules() {
	local m
	for m in configfs null_blk loop kyber-iosched bfq; do
		grep -q "^$(echo $m | tr - _) " /proc/modules && continue
		case $m in
		null_blk) insmod /lib/modules/$m.ko nr_devices=0 ;;
		*) insmod /lib/modules/$m.ko ;;
		esac || { echo "cannot load $m"; return 1; }
	done
	grep -q ' /sys/kernel/config ' /proc/mounts || mount -t configfs configfs /sys/kernel/config
}

# nullb_create NAME attr=value ...: prints the device name, which 6.1
# takes from the configfs directory name.
nullb_create() {
	local name=$1 kv; shift
	mkdir $NB_CFG/$name || return 1
	for kv in "$@"; do
		echo "${kv#*=}" > $NB_CFG/$name/"${kv%%=*}" || { echo "bad null_blk attr $kv" >&2; return 1; }
	done
	echo 1 > $NB_CFG/$name/power || return 1
	local i=0
	while [ ! -b /dev/$name ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	chmod 666 /dev/$name || return 1
	echo $name
}
nullb_destroy() {
	echo 0 > $NB_CFG/$1/power 2>/dev/null
	rmdir $NB_CFG/$1
}

# nullb_throttled NAME MBPS: issue 5's device (200 us completions, depth
# 64) throttled to MBPS MiB/s.
nullb_throttled() {
	nullb_create "$1" queue_mode=2 irqmode=2 completion_nsec=200000 \
		hw_queue_depth=64 mbps=$2 size=8192 blocksize=4096 memory_backed=0
}
# The contended device of issue 5: 200 MiB/s.
nullb_contended() { nullb_throttled "$1" 200; }

# The fairness device: 100 MiB/s (FAIR_MBPS; tests/sim/mixes.sh and
# scripts/sim-mixes.sh read it from here).  At 200 MiB/s a one-deep
# reader's I/O in the mixes spends 1-2 ms outside the block layer waiting
# for a TCG vCPU, against 0.5 ms alone: the guest CPU, not the device,
# bounds it, and its fair share measures CFS, not the elevator
# (docs/testing.md).  At 100 MiB/s the same mixes are device-bound.
FAIR_MBPS=100
nullb_fair() { nullb_throttled "$1" $FAIR_MBPS; }

# wait_until SECS WHAT CMD...: polls CMD every 0.1 s until it succeeds;
# after SECS seconds says "not ok - WHAT did not happen in SECS s" and
# returns 1.  For what a test must wait for, instead of a sleep that
# "should be enough" (TCG guests run at whatever speed the host allows).
wait_until() {
	local secs=$1 what=$2 i=0
	shift 2
	while [ $i -lt $((secs * 10)) ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	"$@" && return 0
	notok "$what did not happen in $secs s"
	return 1
}
# ios DEV: completed reads + writes; io_since DEV N: more than N now.
ios() { awk '{ print $1 + $5 }' /sys/block/$1/stat; }
io_since() { [ "$(ios $1)" -gt "$2" ]; }
# ctxt: context switches since boot, all CPUs (/proc/stat).
ctxt() { sed -n 's/^ctxt //p' /proc/stat; }

set_sched() { echo "$2" > /sys/block/$1/queue/scheduler; }
cur_sched() { sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/block/$1/queue/scheduler; }
iosched() { echo /sys/block/$1/queue/iosched/$2; }
# The elevator's counters and groups live in debugfs (no page limit).
schedfile() {
	grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
	echo /sys/kernel/debug/block/$1/sched/$2
}

max() { awk -v a="$1" -v b="$2" 'BEGIN {print (a + 0 > b + 0) ? a : b}'; }
# fairness CAP "DEMANDS" "GOTS": "maxmin_jain worst_share jain" by
# DESIGN's "Measuring fairness" (bytes/s), from `cfqx fairness`.
fairness() {
	/cfqx/bin/cfqx fairness --capacity "$1" --demand "$2" --got "$3"
}
sum() { echo "$@" | awk '{s=0; for (i=1;i<=NF;i++) s+=$i; printf "%.0f\n", s}'; }

# fio_bw JSON: per-job read+write bandwidth in bytes/s, in job order.
fio_bw() { jq -r '[.jobs[] | (.read.bw_bytes + .write.bw_bytes)] | map(tostring) | join(" ")' "$1"; }
fio_errors() { jq -r '[.jobs[].error] | add' "$1"; }
# fio_lat JSON JOB: "p99_us max_us" of a job's read completion latency.
fio_lat() {
	jq -r --arg j "$2" '.jobs[] | select(.jobname == $j) | .read.clat_ns |
		"\((.percentile["99.000000"] // 0) / 1000 | floor) \(.max / 1000 | floor)"' "$1"
}
mb() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }

# group_bw JSON: "uid bytes/s" per group (jobs of one uid summed), by uid.
group_bw() {
	jq -r '[.jobs[] | {u: .["job options"].uid, b: (.read.bw_bytes + .write.bw_bytes)}]
		| group_by(.u) | .[] | "\(.[0].u) \(map(.b) | add)"' "$1"
}

# group_lat JSON: "uid lat_us cycle_us" per group: the mean time a request
# took from submission to completion (in the scheduler and the device), and
# the mean time between a job's requests (lat plus the job's own think and
# CPU time), over the group's jobs.  A group whose cycle is far above its
# lat lost its share to the CPU, not to the I/O scheduler.
group_lat() {
	jq -r '[.jobs[] | {u: .["job options"].uid, n: (.read.total_ios + .write.total_ios),
		l: ((.read.lat_ns.mean // 0) * .read.total_ios + (.write.lat_ns.mean // 0) * .write.total_ios),
		t: (.job_runtime * 1000000)}]
		| group_by(.u) | .[] | (map(.n) | add) as $n
		| "\(.[0].u) \(if $n > 0 then (map(.l) | add) / $n / 1000 | floor else 0 end) \(if $n > 0 then (map(.t) | add) / $n / 1000 | floor else 0 end)"' "$1"
}

# cpu_use "CPU LINE" "CTXT": the guest CPUs' busy share (%) since that
# /proc/stat "cpu" line (iowait counts as idle), where it went (user,
# system, irq, softirq, in % of all CPU time) and the context switches
# since that "ctxt" count.  A mix that keeps the CPUs near 100% is bound
# by the guest CPU, not the device.
cpu_use() {
	echo "$1 $(head -n 1 /proc/stat) $2 $(ctxt)" | awk '{ n = 11
		for (i = 2; i <= n; i++) { d[i] = $(i + n) - $i; t += d[i] }
		if (!t) t = 1
		printf "%.0f%% busy (user %.0f%% sys %.0f%% irq %.0f%% softirq %.0f%%, %d context switches)",
			100 * (t - d[5] - d[6]) / t, 100 * (d[2] + d[3]) / t, 100 * d[4] / t,
			100 * d[7] / t, 100 * d[8] / t, $(2 * n + 2) - $(2 * n + 1) }'
}

# fair_mix MIX DEV "SCHEDS": runs tests/mixes/MIX.fio (groups by uid) on
# DEV: each group alone under none (its demand), then the whole mix under
# each scheduler, all in this boot.  Prints a table and one line per
# scheduler: FAIR|mix|sched|MiB/s|maxmin_jain|worst_share|jain|per-group
# MiB/s (DESIGN "Measuring fairness", by `cfqx fairness`; the capacity is
# the most any scheduler delivered).  Non-zero when fio failed.
fair_mix() {
	local mix=$1 dev=$2 scheds=$3 job=/tests/mixes/$1.fio u s got t f c0 x0 use
	local demand="" cap=0 res=""
	export CFQX_DEV=/dev/$dev
	set_sched $dev none
	for u in $(sed -n 's/^uid=//p' $job | sort -un); do
		run_fio solo-$mix-$u "$job" $(job_sections $job uid=$u) || return 1
		demand="$demand $(group_bw $FIO_OUT/solo-$mix-$u.json | awk '{print $2}')"
	done
	for s in $scheds; do
		set_sched $dev $s
		[ $s = cfqx ] && echo uid > $(iosched $dev group_by)
		c0=$(head -n 1 /proc/stat)
		x0=$(ctxt)
		# cfqx's groups as they stand while the mix runs (they go when
		# the processes do): the last of samples every half second.
		if [ $s = cfqx ]; then
			( while :; do sleep 0.5; awk 'NR > 1 && $7 > 0' $(schedfile $dev groups) > /tmp/groups.now
				[ -s /tmp/groups.now ] && cp /tmp/groups.now /tmp/groups-$mix; done ) &
			sampler=$!
		fi
		run_fio $mix-$s "$job" || { [ $s = cfqx ] && kill $sampler; return 1; }
		[ $s = cfqx ] && { kill $sampler; wait $sampler 2>/dev/null; }
		use=$(cpu_use "$c0" "$x0")
		# What cfqx learned of the device in the mix (debugfs stats).
		[ $s = cfqx ] && say "$mix: cfqx learned: $(grep -E \
			'^(depth|lat_min_us|capacity_kib_s|depth_full|pace_refused|paced|late_wakes|idle_hit|idle_expired|timer_armed|timer_fired|stopped_seen|kicks|inline_runs|ready_us|held_order_us|held_depth_us|held_pace_us|held_idle_us|pace_kib_s) ' \
			$(schedfile $dev stats) | tr '\n' ' ')"
		[ $s = cfqx ] && say "$mix: cfqx groups (id: wait in the core / on the device / think, us, EWMA): $(awk \
			'{ printf "%s: %s/%s/%s, ", $2, $11, $12, $10 }' /tmp/groups-$mix 2>/dev/null)"
		say "$mix: $s: guest CPU $use; per group (uid lat_us cycle_us): $(group_lat $FIO_OUT/$mix-$s.json | tr '\n' ',')"
		got=$(group_bw $FIO_OUT/$mix-$s.json | awk '{print $2}' | tr '\n' ' ')
		res="$res$s:$got;"
		t=$(sum $got); [ "$t" -gt "$cap" ] && cap=$t
	done
	say "$mix: demands (MiB/s):$(for u in $demand; do printf ' %s' $(mb $u); done), capacity $(mb $cap)"
	printf '  %-12s %8s %7s %6s %6s  %s\n' scheduler MiB/s maxmin worst jain "per-group MiB/s"
	for s in $scheds; do
		got=$(echo "$res" | tr ';' '\n' | sed -n "s/^$s://p")
		f=$(fairness $cap "$demand" "$got")
		[ -n "$f" ] || { say "cfqx fairness failed"; return 1; }
		set -- $f
		t=$(sum $got)
		printf '  %-12s %8s %7s %6s %6s  %s\n' $s $(mb $t) $1 $2 $3 \
			"$(for u in $got; do printf '%s ' $(mb $u); done)"
		echo "FAIR|$mix|$s|$t|$1|$2|$3|$(for u in $got; do printf '%s ' $(mb $u); done)"
	done
	case " $scheds " in
	*" cfqx "*) sim_vs_vm "$mix" "$job" "$(echo "$res" | tr ';' '\n' | sed -n 's/^cfqx://p')" \
		"$(cat $NB_CFG/$dev/mbps)" ;;
	esac
}

# sim_vs_vm MIX JOB "GOT" MBPS: what `cfqx sim` predicts for the same job
# file on the nullb model of the device (nullb_throttled's, at MBPS MiB/s),
# against what cfqx delivered
# here (GOT: bytes/s per group in uid order): each group's fraction of the
# total, and the largest gap (issue 9's target: 0.10).  Reported, not
# asserted: the model has no guest CPU, which decides how fast a one-deep
# reader under TCG comes back (docs/benchmarks.md).
sim_vs_vm() {
	local pred meas
	pred=$(cfqx sim "$2" --device nullb,bw=${4}M,lat=200us,depth=64 \
		--policy uid --sched cfqx --json | jq -r '[.groups[] | {k: .key, b: .kib_s}]
		| sort_by(.k) | (map(.b) | add) as $t | map(.b / $t) | map(tostring) | join(" ")') ||
		{ say "$1: cfqx sim failed"; return 1; }
	meas=$(echo $3 | awk '{for (i = 1; i <= NF; i++) t += $i; for (i = 1; i <= NF; i++) printf "%s ", $i / t}')
	echo "$pred|$meas" | awk -F'|' -v mix="$1" '{n = split($1, p, " "); split($2, m, " "); g = 0
		for (i = 1; i <= n; i++) { d = p[i] - m[i]; if (d < 0) d = -d; if (d > g) g = d
			ps = ps sprintf(" %.3f", p[i]); ms = ms sprintf(" %.3f", m[i]) }
		printf "  %s: share of the total, cfqx sim:%s; cfqx here:%s; largest gap %.3f\n", mix, ps, ms, g
		printf "PRED|%s|%.3f\n", mix, g }'
}

# run_fio NAME JOBFILE [FIO ARGS]: runs fio, JSON in $FIO_OUT/NAME.json; 0 if clean.
run_fio() {
	local name=$1 job=$2; shift 2
	fio --output-format=json --output=$FIO_OUT/$name.json "$@" "$job" >/dev/null 2>$FIO_OUT/$name.err
	local rc=$?
	if [ $rc -ne 0 ]; then
		say "fio $name failed (rc $rc):"; cat $FIO_OUT/$name.err $FIO_OUT/$name.json | grep -v '^ ' | head -n 8 | sed 's/^/    /'
	fi
	return $rc
}
# job_sections JOBFILE KEY=VALUE: --section=NAME for each job setting it.
job_sections() {
	local sec="" line
	while read -r line; do
		case $line in
		"["*"]") sec=${line#[}; sec=${sec%]} ;;
		"$2") printf -- '--section=%s ' "$sec" ;;
		esac
	done < "$1"
}
