# The enforcement part of `make demo` (scripts/demo.sh), where the cfqx
# elevator runs: in the QEMU guest (the initramfs's /tests/demo.sh, suite
# "demo") or natively on a host that can load modules.  On the contended
# null_blk device of the VM tests (tests/vm/lib.sh nullb_contended: 200
# MiB/s, 200 us completions, depth 64) three users read 64 KiB blocks at
# random: uid 1001 with three one-deep readers, uid 1002 with one, uid 1003
# greedy (libaio, 16 deep).  Each group first runs alone under none (its
# demand, for the max-min fair share), then all together under none, cfqx,
# cfqx, none (alternated: TCG timing drifts).  Prints progress as
# "demo: ..." and results as "DEMO|phase|scheduler|group|bytes/s" lines
# (phase: solo, or run1 .. run4) for scripts/demo-fair (the host computes
# shares, Jain and the plot).
# busybox sh compatible.  Usage: demo-enforce.sh [guest|native [RUNTIME_S]]
# (the guest's /init runs it bare; cfqx.demo_rt=S on the kernel command
# line sets the runtime there).
mode=${1:-guest}
RT=${2:-$(sed -n 's/.*cfqx\.demo_rt=\([0-9]*\).*/\1/p' /proc/cmdline)}
RT=${RT:-5}
case $mode in
guest)
	. /tests/lib.sh
	load_modules || exit 10
	insmod /lib/modules/cfqx.ko || exit 11 ;;
native)
	# the caller loaded configfs, null_blk and cfqx.ko and mounted
	# configfs; lib.sh brings the functions (its /tmp/fio is replaced by
	# a private directory)
	had_fio=0
	[ -d /tmp/fio ] && had_fio=1
	. "$(dirname "$0")/../../tests/vm/lib.sh"
	[ $had_fio = 1 ] || rmdir /tmp/fio
	FIO_OUT=$(mktemp -d /tmp/cfqx-demo-fio.XXXXXX) ;;
*)
	echo "usage: demo-enforce.sh [guest|native [RUNTIME_S]]" >&2
	exit 2 ;;
esac
DEV=cfqxdemo
dev=$(nullb_contended $DEV) || { echo "demo: cannot create the null_blk device"; exit 12; }
done_() {
	set_sched $dev none 2>/dev/null
	nullb_destroy $DEV
	[ $mode = native ] && rm -rf "$FIO_OUT"
}
trap done_ EXIT
trap 'exit 130' INT TERM

job=$FIO_OUT/demo.fio
cat > $job <<JOB
[global]
filename=/dev/$dev
direct=1
bs=64k
rw=randread
runtime=$RT
time_based=1
ioengine=psync
size=4g
[alice1]
uid=1001
gid=1001
[alice2]
uid=1001
gid=1001
[alice3]
uid=1001
gid=1001
[bob]
uid=1002
gid=1002
[greedy]
ioengine=libaio
iodepth=16
uid=1003
gid=1003
JOB
DGROUPS="alice bob greedy"
sections() {	# the fio sections of group $1
	case $1 in
	alice) echo "--section=alice1 --section=alice2 --section=alice3" ;;
	bob) echo "--section=bob" ;;
	greedy) echo "--section=greedy" ;;
	all) echo "" ;;
	esac
}
# run PHASE SCHEDULER WHO: one fio run, one DEMO line per group it ran.
run() {
	local phase=$1 s=$2 who=$3 g
	set_sched $dev $s || { echo "demo: cannot select $s"; return 1; }
	[ $s = cfqx ] && echo uid > $(iosched $dev group_by)
	fio --output-format=json --output=$FIO_OUT/d.json $(sections $who) $job \
		>/dev/null 2>$FIO_OUT/d.err || {
		echo "demo: fio failed under $s:"; head -n 5 $FIO_OUT/d.err; return 1; }
	for g in $DGROUPS; do
		[ $who = all ] || [ $who = $g ] || continue
		echo "DEMO|$phase|$s|$g|$(jq -r --arg g $g '[.jobs[] |
			select(.jobname | startswith($g)) | .read.bw_bytes] | add' $FIO_OUT/d.json)"
	done
}
echo "demo: kernel $(uname -r), null_blk /dev/$dev (200 MiB/s, 200 us, depth 64), ${RT}s per run"
for g in $DGROUPS; do
	echo "demo: $g alone (its demand)"
	run solo none $g || exit 13
done
i=0
for s in none cfqx cfqx none; do
	i=$((i + 1))
	echo "demo: all three groups under $s (run $i of 4)"
	run run$i $s all || exit 14
done
echo "demo: done"
