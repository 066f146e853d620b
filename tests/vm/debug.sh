# Debug suite (cfqx.suite=debug): ad-hoc investigation in the guest.
. /tests/lib.sh
load_modules; insmod /lib/modules/cfqx.ko
dev=$(nullb_contended nbdbg)
ls -l /dev/nbdbg
ls -ld / /tmp /dev
fio --name=x --filename=/dev/nbdbg --direct=1 --bs=64k --rw=randread --runtime=1 --time_based --uid=1001 --gid=1001 --size=1g 2>&1 | grep -iE 'err|fio:' | head
fio --name=x --filename=/dev/nbdbg --direct=1 --bs=64k --rw=randread --runtime=1 --time_based --size=1g 2>&1 | grep -iE 'err|fio:' | head
cd /tmp && fio --name=x --filename=/dev/nbdbg --direct=1 --bs=64k --rw=randread --runtime=1 --time_based --uid=1001 --gid=1001 --size=1g 2>&1 | grep -iE 'err|fio:' | head
