# Runs every in-guest cfqx test (t*.sh, in name order) and returns the
# number of failed ones.  Each test prints "ok"/"not ok" lines and exits
# non-zero when any check failed.
. /tests/lib.sh
load_modules || exit 10
insmod /lib/modules/cfqx.ko || { echo "not ok - insmod cfqx.ko"; exit 11; }
ok "insmod cfqx.ko"
# The stall watchdog explains (and, for null_blk's lost restart, repairs)
# a guest that stops making progress, instead of a silent host timeout.
sh /tests/stall-watch.sh &
watch_pid=$!
# cfqx.tests=t10,t20 on the kernel command line runs only those.
only=$(sed -n 's/.*cfqx\.tests=\([a-z0-9_,-]*\).*/\1/p' /proc/cmdline | tr , ' ')
failed=0
for t in /tests/t[0-9]*.sh; do
	name=$(basename $t .sh)
	if [ -n "$only" ]; then
		case " $only " in *" ${name%%-*} "*) ;; *) continue ;; esac
	fi
	echo "== $name"
	start=$(date +%s)
	sh $t
	rc=$?
	secs=$(( $(date +%s) - start ))
	if [ $rc -eq 0 ]; then
		echo "== $name: PASS (${secs}s)"
	else
		echo "== $name: FAIL (rc $rc, ${secs}s)"
		failed=$((failed + 1))
	fi
done
kill $watch_pid 2>/dev/null
echo "== stall-watch: $(grep -c . /tmp/stall-watch/restarts) lost null_blk restart(s) repaired$(awk '{ printf " (%s at %s s)", $1, $2 }' /tmp/stall-watch/restarts)"
echo "== $failed test(s) failed"
exit $failed
