# Latency: one synchronous reader's worst-case completion latency stays
# under fifo_expire_sync plus one dispatch round (the FIFO is checked once
# per fifo_batch_expire) while four groups of writers flood the device
# with buffered (async) writes.  mq-deadline's figure is printed beside it.
. /tests/lib.sh
FAILED=0
dev=$(nullb_contended nblat) || { notok "create null_blk"; exit 1; }
cat > /tmp/lat.fio <<JOB
[global]
filename=/dev/$dev
runtime=5
time_based=1
size=4g
[reader]
direct=1
ioengine=psync
rw=randread
bs=4k
uid=1005
gid=1005
JOB
for u in 1 2 3 4; do
	printf '[writer%d]\ndirect=0\nrw=write\nbs=256k\noffset=%dg\nsize=1g\nuid=100%d\ngid=100%d\n' $u $u $u $u >> /tmp/lat.fio
done
for s in mq-deadline cfqx; do
	set_sched $dev $s
	run_fio lat-$s /tmp/lat.fio || { notok "fio under $s"; continue; }
	set -- $(fio_lat $FIO_OUT/lat-$s.json reader)
	say "$s: sync reader p99 ${1} us, max ${2} us, writers $(mb $(sum $(fio_bw $FIO_OUT/lat-$s.json))) MiB/s"
	eval "max_$(echo $s | tr - _)=$2"
	sync
done
bound_ms=$(( $(cat $(iosched $dev fifo_expire_sync)) + $(cat $(iosched $dev fifo_batch_expire)) ))
check "cfqx sync reader max latency ${max_cfqx} us < fifo_expire_sync + one round (${bound_ms} ms)" \
	[ "${max_cfqx:-999999999}" -lt $((bound_ms * 1000)) ]
set_sched $dev none
nullb_destroy nblat
exit $FAILED
