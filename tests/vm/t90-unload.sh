# Last: nothing uses cfqx any more, so rmmod must succeed cleanly.
. /tests/lib.sh
FAILED=0
for q in /sys/block/*/queue/scheduler; do
	grep -q '\[cfqx\]' $q && echo none > $q
done
check "rmmod cfqx" rmmod cfqx
check "cfqx no longer offered" sh -c "! grep -qw cfqx /sys/block/*/queue/scheduler"
exit $FAILED
