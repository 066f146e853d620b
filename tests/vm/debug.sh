# Debug suite (cfqx.suite=debug): ad-hoc investigation in the guest.
. /tests/lib.sh
load_modules; insmod /lib/modules/cfqx.ko
dev=$(nullb_contended nbdbg)
fio_job contended $dev 3 > /tmp/fair.fio
for s in none cfqx:2000:4 none cfqx:2000:4 none cfqx:2000:4; do
	sc=${s%%:*}
	set_sched $dev $sc
	if [ $sc = cfqx ]; then
		echo uid > $(iosched $dev group_by)
		x=${s#*:}; echo ${x%:*} > $(iosched $dev slice_idle); echo ${x#*:} > $(iosched $dev max_depth)
	fi
	run_fio f /tmp/fair.fio
	bw=$(fio_bw $FIO_OUT/f.json)
	echo "$s: $(for b in $bw; do mb $b; echo -n ' '; done) total $(mb $(sum $bw)) jain $(jain $bw)"
done
