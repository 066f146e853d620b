# make bench-sched, second guest: the per-request cost of cfqx against
# none, mq-deadline and bfq.  The guest runs instruction-timed (QEMU
# -icount shift=0, one vCPU: scripts/vm/run.sh, suite "cost"): its clock
# advances one ns per instruction executed, so on a null_blk that
# completes at once (IOPS-bound: the CPU is the limit) fio's IOPS are
# 10^9 / instructions per I/O, the same on a busy host as on an idle one
# and from one run to the next.  What it does not see: cache misses,
# lock contention between CPUs.  4 KiB random reads, 32 in flight in all
# or one-deep psync readers, 1 group or 8 (one uid each), two rounds in
# opposite orders (the second shows the figure repeats); then the BPF
# accounting's cost (below).
# Prints, for scripts/vm/bench-report.sh:
#   IOPS|workload|sched|round|iops   (workload: 1, 8, 1-psync, 8-psync)
#   BPF|mode|round|iops|bpf_ns_per_io
#   BPFPROG|mode|round|program|runs_per_io_x100|ns_per_io
# cfqx.cost=bpf on the kernel command line (CFQX_VM_APPEND) runs the BPF
# part alone, cfqx.cost=iops the per-request part alone.
# cfqx.cost_timer=NS completes each request from a timer NS ns later
# (null_blk irqmode=2) instead of inside its submission: requests then
# overlap, so a group stays busy across them (few busy/idle edges).
. /tests/lib.sh
parts=$(sed -n 's/.*cfqx\.cost=\([a-z]*\).*/\1/p' /proc/cmdline)
parts=${parts:-iops,bpf}
timer_ns=$(sed -n 's/.*cfqx\.cost_timer=\([0-9]*\).*/\1/p' /proc/cmdline)
completion="irqmode=0"
[ -n "$timer_ns" ] && completion="irqmode=2 completion_nsec=$timer_ns"
load_modules || exit 10
insmod /lib/modules/cfqx.ko || exit 11
RT=${BENCH_COST_RUNTIME:-1}
dev=$(nullb_create nbiops queue_mode=2 $completion hw_queue_depth=256 \
	size=8192 blocksize=4096 memory_backed=0) || exit 13
echo "bench-cost: null_blk $completion"
# Workloads: 32 requests in flight from libaio (1 process, or 8 of 4
# each), and one-deep psync readers (1, or 8), whose requests blk-mq
# queues through the elevator one at a time.  Labels: 1, 8, 1-psync,
# 8-psync.
for w in 1 8 1-psync 8-psync; do
	case $parts in *iops*) ;; *) break ;; esac
	n=${w%-psync}
	case $w in
	*-psync) engine="ioengine=psync" ;;
	*) engine="ioengine=libaio\niodepth=$((32 / n))" ;;
	esac
	{ printf '[global]\nfilename=/dev/%s\ndirect=1\nrw=randread\nbs=4k\nsize=4g\nruntime=%s\ntime_based=1\n'"$engine"'\n' \
		$dev $RT
	  i=1; while [ $i -le $n ]; do printf '[g%d]\nuid=%d\ngid=%d\n' $i $((1000 + i)) $((1000 + i)); i=$((i + 1)); done
	} > /tmp/iops.fio
	for r in 1 2; do
		case $r in 1) order="none mq-deadline bfq cfqx" ;; 2) order="cfqx bfq mq-deadline none" ;; esac
		for s in $order; do
			set_sched $dev $s; [ $s = cfqx ] && echo uid > $(iosched $dev group_by)
			run_fio iops /tmp/iops.fio &&
				echo "IOPS|$w|$s|$r|$(jq '[.jobs[].read.iops] | add | floor' $FIO_OUT/iops.json)"
		done
	done
done

# The BPF accounting's cost on the same device under none: no tracing,
# cfqx's accounting (cfqx load), libbpf-tools' biolatency; on a kernel
# with block_io_start (cfqx's default there) also cfqx with records
# started at block_getrq (cfqx-getrq), the bio hop it saves.  With
# kernel.bpf_stats_enabled, run_time_ns counts the programs' instructions
# here as well.  Prints BPF|mode|round|iops|bpf_ns_per_io.
set_sched $dev none
echo 1 > /proc/sys/kernel/bpf_stats_enabled
printf '[bpf]\nfilename=/dev/%s\ndirect=1\nrw=randread\nbs=4k\nsize=4g\nruntime=%s\ntime_based=1\nioengine=libaio\niodepth=32\n' \
	$dev $RT > /tmp/bpf.fio
prog_ids() { bpftool prog show --json | jq -r '.[].id' | sort -n; }
new_progs() { # busybox has no comm
	prog_ids > /tmp/ids.now
	if [ -s /tmp/ids.before ]; then grep -vxFf /tmp/ids.before /tmp/ids.now; else cat /tmp/ids.now; fi
}
# One line per program: id run_cnt run_time_ns name.
prog_stats() {
	local id
	for id in "$@"; do
		bpftool prog show id $id --json |
			jq -r '"\(.id) \(.run_cnt // 0) \(.run_time_ns // 0) \(.name)"'
	done
}
ios() { awk '{ print $1 + $5 }' /sys/block/$dev/stat; }
tool=""
bpf_mode() { # MODE ROUND
	local ids io0 io1 i
	prog_ids > /tmp/ids.before
	case $1 in
	cfqx) cfqx load --dev $dev >/dev/null || return 1 ;;
	cfqx-getrq) cfqx load --dev $dev --start-hook getrq >/dev/null || return 1 ;;
	biolatency)
		biolatency 1000 1 >/dev/null 2>&1 & tool=$!
		i=0
		while [ "$(new_progs | wc -l)" -lt 2 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
		;;
	esac
	ids=$(new_progs)
	prog_stats $ids > /tmp/prog.0; io0=$(ios)
	run_fio bpf /tmp/bpf.fio || return 1
	prog_stats $ids > /tmp/prog.1; io1=$(ios)
	case $1 in
	cfqx*) cfqx unload >/dev/null ;;
	biolatency) kill -INT $tool; wait $tool ;;
	esac
	# per program: runs and ns per I/O; then the sum
	awk -v m=$1 -v r=$2 -v n=$((io1 - io0 > 0 ? io1 - io0 : 1)) '
		NR == FNR { c[$1] = $2; t[$1] = $3; next }
		{ dn = $3 - t[$1]; tot += dn
		  if ($2 > c[$1]) printf "BPFPROG|%s|%s|%s|%d|%d\n", m, r, $4, ($2 - c[$1]) * 100 / n, dn / n }
		END { print tot + 0 > "/tmp/prog.ns" }' /tmp/prog.0 /tmp/prog.1
	echo "BPF|$1|$2|$(jq '.jobs[0].read.iops | floor' $FIO_OUT/bpf.json)|$(( $(cat /tmp/prog.ns) / (io1 - io0 > 0 ? io1 - io0 : 1) ))"
}
bio=biolatency
command -v biolatency >/dev/null ||
	{ bio=; echo "bench-cost: no biolatency in the guest: its mode skipped"; }
getrq=
cfqx load --dev $dev >/dev/null && {
	[ "$(cfqx status --json | jq -r .start_hook)" = io_start ] && getrq=cfqx-getrq
	cfqx unload >/dev/null
}
for r in 1 2; do
	case $parts in *bpf*) ;; *) break ;; esac
	case $r in 1) order="none cfqx $getrq $bio" ;; 2) order="$bio $getrq cfqx none" ;; esac
	for m in $order; do
		bpf_mode $m $r || echo "bench-cost: BPF mode $m failed"
	done
done
echo 0 > /proc/sys/kernel/bpf_stats_enabled
nullb_destroy nbiops
rmmod cfqx
echo "BENCH-DONE"
