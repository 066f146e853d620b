# In-guest stall watchdog, run in the background by run-tests.sh: a guest
# that stops making progress is seen, explained and, in the one case that
# is a driver's fault, repaired, instead of ending as a silent timeout on
# the host (two CI runs hung that way between t20 mixes, state unseen).
#
# Every STALL_POLL_S seconds it reads each block device's completions
# (/sys/block/DEV/stat) and its blk-mq state in debugfs.  It reports, once
# per episode, lines starting "!! stall-watch:" on the console:
#  - a device with requests pending (in flight, on a hardware queue's
#    dispatch list or holding scheduler tags) and no completion for
#    STALL_S seconds: the hardware queues' state, dispatch lists and tags,
#    the scheduler and cfqx's debugfs stats and groups, the tasks in D
#    state and their kernel stacks (sysrq-w);
#  - a hardware queue STOPPED with no completion over two polls while no
#    null_blk bandwidth timer is pending.  Only a driver stops a queue
#    (cfqx never does), and null_blk's mbps throttle restarts it from
#    that timer; the timer can end (HRTIMER_NORESTART on a tick that
#    finds the budget unused) while submitters, seeing it still active,
#    do not re-arm it, and then nothing ever starts the queue again
#    (drivers/block/null_blk/main.c, nullb_bwtimer_fn and
#    null_handle_throttled).  The watchdog reports it, restarts the
#    stopped queues through debugfs ("start" to block/DEV/state) and
#    counts it; the count is printed by run-tests.sh at the end.
# It never fails a test by itself: a stall still shows up in the tests'
# own checks, now with its cause on the console.
STALL_POLL_S=${STALL_POLL_S:-2}
STALL_S=${STALL_S:-30}
STATE=/tmp/stall-watch
DBG=/sys/kernel/debug/block
mkdir -p $STATE
: > $STATE/restarts

report() { # DEV WHY
	local d=$1 h
	echo "!! stall-watch: $d: $2"
	echo "!! stall-watch: $d: scheduler $(cat /sys/block/$d/queue/scheduler 2>/dev/null), inflight $(cat /sys/block/$d/inflight 2>/dev/null)"
	for h in $DBG/$d/hctx*; do
		[ -d "$h" ] || continue
		echo "!! stall-watch: $d/${h##*/}: state $(cat $h/state), busy $(cat $h/busy | wc -l), dispatch $(cat $h/dispatch | wc -l), sched_tags $(grep -o 'busy=[0-9]*' $h/sched_tags 2>/dev/null)"
	done
	for f in stats groups; do
		[ -r $DBG/$d/sched/$f ] && sed "s|^|!! stall-watch: $d: $f: |" $DBG/$d/sched/$f
	done
	ps -o pid,stat,comm 2>/dev/null | awk '$2 ~ /D/' | sed 's/^/!! stall-watch: D task: /'
	echo w > /proc/sysrq-trigger 2>/dev/null
	dmesg | grep -A12 'task:.* state:D' | tail -n 40 | sed 's/^/!! stall-watch: /'
}

# pending DEV: requests the device holds (in flight, on a dispatch list,
# holding scheduler tags), in one awk.
pending() {
	awk 'FILENAME ~ /inflight$/ { n += $1 + $2 }
	     FILENAME ~ /dispatch$/ { n++ }
	     FILENAME ~ /sched_tags$/ && /^busy=/ { sub(/busy=/, ""); n += $1 }
	     END { print n + 0 }' /sys/block/$1/inflight $DBG/$1/hctx*/dispatch \
		$DBG/$1/hctx*/sched_tags 2>/dev/null
}

stopped() { # DEV: true when a hardware queue of DEV is STOPPED
	cat $DBG/$1/hctx*/state 2>/dev/null | grep -q STOPPED
}

while :; do
	now=$(cut -d. -f1 /proc/uptime)
	# One awk for every device: "DEV completed in_flight".
	awk '{ n = split(FILENAME, p, "/"); print p[n - 1], $1 + $5, $9 }' \
		/sys/block/*/stat > $STATE/poll
	while read -r d done_ios inflight; do
		# A device that never did I/O is not watched.
		[ "$done_ios" = 0 ] && [ "$inflight" = 0 ] && continue
		[ -d $DBG/$d ] || continue
		last=$(cat $STATE/$d.ios 2>/dev/null)
		if [ "$done_ios" != "$last" ] || [ "$(pending $d)" = 0 ]; then
			echo "$done_ios" > $STATE/$d.ios
			echo "$now" > $STATE/$d.since
			rm -f $STATE/$d.reported $STATE/$d.stopped
			continue
		fi
		since=$(cat $STATE/$d.since)
		if stopped $d && ! grep -q nullb_bwtimer_fn /proc/timer_list 2>/dev/null; then
			if [ -e $STATE/$d.stopped ]; then
				report $d "hardware queue STOPPED, nothing completed for $((now - since)) s, no null_blk bandwidth timer pending: the driver's lost restart; restarting the queue"
				echo start > $DBG/$d/state
				echo "$d $now" >> $STATE/restarts
				rm -f $STATE/$d.stopped
			else
				: > $STATE/$d.stopped
			fi
		fi
		if [ $((now - since)) -ge "$STALL_S" ] && [ ! -e $STATE/$d.reported ]; then
			report $d "requests pending and nothing completed for $((now - since)) s"
			: > $STATE/$d.reported
		fi
	done < $STATE/poll
	sleep "$STALL_POLL_S"
done
