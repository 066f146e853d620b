#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Event pipeline accounting under load, on the real kernel ring buffer:
#   storm     >= 10^6 events ring buffer -> kfifo -> JSON lines through
#             `cfqx run`: read == emitted + counted drops, exactly
#   sigterm   SIGTERM in the middle of a storm: drain, exit 0, counts add up
#   malformed short records, wrong size fields, unknown kinds: counted and
#             skipped by the ASan/UBSan build of cfqx, never a crash
#   tsan      the pipeline under ThreadSanitizer, waiting and dropping,
#             and shutting down with a stalled sink
#   sinkfail  a sink that starts failing mid-storm (a file size limit):
#             every lost line counted, the file holds exactly json_lines
#   sinkstall a sink that stalls (a FIFO nobody reads): SIGTERM exits in
#             bounded time with exact counters; then one that stalls and
#             resumes, in wait and in drop mode
#   once      `cfqx run --once` finishes while a producer keeps writing
# The generator (bpf/cfqx_storm.bpf.c) shares a private events ring buffer
# and stats map pinned under /sys/fs/bpf/cfqx-evtest-PID.
. "$(dirname "$0")/lib.sh"
mode=${1:?usage: storm.sh storm|sigterm|malformed|tsan|sinkfail|sinkstall|once}
RING=$((4 << 20))

# Identities every pipeline run must satisfy (counters JSON in $1, the
# JSON lines it wrote in $2): every record read has exactly one outcome.
check_pipeline() {
	local c=$1 out=$2 label=$3
	eq "$label: read == notified + suppressed + failed + dropped" \
		"$(j .read "$c")" "$(jq '.notified + .suppressed + .failed + .dropped' "$c")"
	eq "$label: dropped == malformed + unknown_kind + kfifo_full + shutdown_dropped" \
		"$(j .dropped "$c")" \
		"$(jq '.malformed + .unknown_kind + .kfifo_full + .shutdown_dropped' "$c")"
	eq "$label: read == valid + dropped" "$(j .read "$c")" \
		"$(jq '.valid + .dropped' "$c")"
	eq "$label: valid == json_lines + json_failed" "$(j .valid "$c")" \
		"$(jq '.json_lines + .json_failed' "$c")"
	# wc -l counts complete lines only: a line cut by a failed write is
	# one of json_failed, never of json_lines
	eq "$label: complete lines in the output == json_lines" \
		"$(wc -l < "$out")" "$(j .json_lines "$c")"
}

# No loss at all (a sink that never fails or stalls).
check_clean() {
	local c=$1 label=$2
	eq "$label: nothing failed" "$(j .failed "$c")" 0
	eq "$label: no sink errors" "$(j .sink_errors "$c")" 0
	eq "$label: nothing dropped at shutdown" "$(j .shutdown_dropped "$c")" 0
	eq "$label: every valid event notified" "$(j .notified "$c")" "$(j .valid "$c")"
}

# The complete lines of $1 are seq 1, 2, ... N in order (none lost
# before a write failure, none written twice).
check_seq() {
	local out=$1 label=$2 n
	n=$(wc -l < "$out")
	eq "$label: seq of the complete lines is 1..$n" \
		"$(head -n "$n" "$out" | jq -r .seq | awk '$1 != NR { bad++ } END { print bad + 0 }')" 0
}

check_storm() {
	local s=$1
	eq "generator: tried == written + rb_drops" "$(j .tried "$s")" \
		"$(( $(j .written "$s") + $(j .rb_drops "$s") ))"
}

start_daemon() {	# start_daemon CFQX-BINARY STATE-DIR JSON-OUT [ARGS]
	local bin=$1 st=$2 out=$3
	shift 3
	mkdir -p "$st"
	"$bin" run --no-load --no-uevents --maps "$MAPS" --state-dir "$st" \
		--json "$out" "$@" 2> "$st.stderr" 3<&- &
	DPID=$!
	on_exit "kill -TERM $DPID"
	wait_json "$st/daemon.json" '.running == true' 10 ||
		{ say "FAIL: daemon did not start"; exit 1; }
}

# A FIFO sink nobody reads: we hold it open on fd 3 (read-write, so
# neither our open nor the writer's blocks) and never read it.
stall_fifo() {		# stall_fifo PATH
	rm -f "$1"
	mkfifo "$1"
	exec 3<> "$1"
}
# The sink resumes: a reader takes over (its open cannot block: we are a
# writer until it has the FIFO open), then we let go.  Sets CPID.
resume_fifo() {		# resume_fifo PATH OUT
	exec 4< "$1"
	exec 3<&-
	cat <&4 > "$2" &
	CPID=$!
	exec 4<&-
}

# SIGTERM; expect exit status $2 (default 0).  Sets STOP_MS to how long
# the daemon took to exit.
stop_daemon() {		# stop_daemon STATE-DIR [RC]
	local rc t0
	t0=$(date +%s%N)
	kill -TERM "$DPID"
	wait "$DPID"
	rc=$?
	STOP_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
	eq "daemon exit status after SIGTERM" "$rc" "${2:-0}"
	eq "daemon.json says stopped" "$(j .running "$1/daemon.json")" false
}

case $mode in
storm)
	"$BIN/cfqx-storm" --maps "$MAPS" --create $RING --events 0 > /dev/null
	start_daemon "$CFQX" "$STATE/d" "$STATE/out.jsonl"
	say "storm: 1000000 events into a $((RING >> 20)) MiB ring buffer"
	"$BIN/cfqx-storm" --maps "$MAPS" --events 1000000 --per-trigger 256 \
		--groups 64 > "$STATE/storm.json" || exit 1
	cat "$STATE/storm.json"
	w=$(j .written "$STATE/storm.json")
	# Let the daemon drain what is in the ring, then stop it.
	wait_json "$STATE/d/daemon.json" ".read >= $w" 60 ||
		say "daemon did not read everything within 60 s"
	stop_daemon "$STATE/d"
	c=$STATE/d/daemon.json
	cat "$c"
	check_storm "$STATE/storm.json"
	check "at least 10^6 events written to the ring buffer" [ "$w" -ge 1000000 ]
	eq "daemon read == generator written" "$(j .read "$c")" "$w"
	eq "stats map RB_DROPS == generator reserve failures" \
		"$(j .rb_drops "$c")" "$(j .rb_drops "$STATE/storm.json")"
	check_pipeline "$c" "$STATE/out.jsonl" daemon
	check_clean "$c" daemon
	check_seq "$STATE/out.jsonl" daemon
	eq "no kfifo drops in wait mode" "$(j .kfifo_full "$c")" 0
	# Order and loss: the generator numbers its records 1, 2, ...; the
	# JSON lines must be increasing (ring buffer and kfifo keep order).
	bad=$(awk -F'"value":' '{ split($2, a, ","); v = a[1] + 0;
		if (v <= last) bad++; last = v } END { print bad + 0 }' "$STATE/out.jsonl")
	eq "JSON lines in generator order" "$bad" 0
	;;
sigterm)
	"$BIN/cfqx-storm" --maps "$MAPS" --create $RING --events 0 > /dev/null
	start_daemon "$CFQX" "$STATE/d" "$STATE/out.jsonl"
	# --until-signal: the storm runs until told to stop, so it is surely
	# still running when the daemon gets SIGTERM (a fixed number of tries
	# could end first on a machine where the daemon is slow)
	"$BIN/cfqx-storm" --maps "$MAPS" --fill --until-signal --per-trigger 256 \
		> "$STATE/storm.json" &
	spid=$!
	on_exit "kill $spid"
	wait_json "$STATE/d/daemon.json" '.read >= 300000' 60 ||
		{ echo "FAIL: the daemon read less than 300000 events in 60 s"; exit 1; }
	check "the storm is still running when SIGTERM is sent" kill -0 $spid
	stop_daemon "$STATE/d"
	c=$STATE/d/daemon.json
	cat "$c"
	check_pipeline "$c" "$STATE/out.jsonl" "stopped daemon"
	check_clean "$c" "stopped daemon"
	kill -TERM $spid
	wait $spid
	eq "storm exit status after SIGTERM" $? 0
	cat "$STATE/storm.json"
	check_storm "$STATE/storm.json"
	# What the stopped daemon did not read is still in the ring: a
	# second run drains it; the two together read everything written.
	"$CFQX" run --no-load --no-uevents --once --maps "$MAPS" \
		--state-dir "$STATE/d2" --json "$STATE/out2.jsonl"
	eq "second run (--once) exit status" $? 0
	check_pipeline "$STATE/d2/daemon.json" "$STATE/out2.jsonl" "draining run"
	check_clean "$STATE/d2/daemon.json" "draining run"
	eq "first read + second read == generator written" \
		"$(( $(j .read "$c") + $(j .read "$STATE/d2/daemon.json") ))" \
		"$(j .written "$STATE/storm.json")"
	;;
malformed)
	CFQX=$ROOT/build/cfqx-asan
	"$BIN/cfqx-storm" --maps "$MAPS" --create $RING --events 0 > /dev/null
	start_daemon "$CFQX" "$STATE/d" "$STATE/out.jsonl"
	"$BIN/cfqx-storm" --maps "$MAPS" --events 200000 --per-trigger 128 \
		--short-every 7 --badsize-every 11 --unknown-every 13 \
		> "$STATE/storm.json" || exit 1
	"$BIN/cfqx-storm" --maps "$MAPS" --events 1000 --per-trigger 100 \
		--kind 0 > "$STATE/storm0.json" || exit 1
	cat "$STATE/storm.json" "$STATE/storm0.json"
	w=$(( $(j .written "$STATE/storm.json") + $(j .written "$STATE/storm0.json") ))
	wait_json "$STATE/d/daemon.json" ".read >= $w" 60
	stop_daemon "$STATE/d"
	c=$STATE/d/daemon.json
	cat "$c"
	eq "daemon read == generator written" "$(j .read "$c")" "$w"
	eq "malformed == short records + wrong size fields" "$(j .malformed "$c")" \
		"$(( $(j .written_short "$STATE/storm.json") + $(j .written_badsize "$STATE/storm.json") ))"
	eq "unknown_kind == kind 200 records + kind 0 records" "$(j .unknown_kind "$c")" \
		"$(( $(j .written_unknown "$STATE/storm.json") + $(j .written "$STATE/storm0.json") ))"
	check "some of each bad kind were written" \
		[ "$(j .written_short "$STATE/storm.json")" -gt 0 -a \
		  "$(j .written_badsize "$STATE/storm.json")" -gt 0 -a \
		  "$(j .written_unknown "$STATE/storm.json")" -gt 0 ]
	check_pipeline "$c" "$STATE/out.jsonl" daemon
	check_clean "$c" daemon
	check "no JSON line for a bad record (kinds are known names)" \
		bash -c "! grep -q '\"event\":\"unknown\"' '$STATE/out.jsonl'"
	;;
tsan)
	# Deterministic back-pressure: the JSON sink is a named pipe that the
	# test holds open and does not read until the pipeline has shown a full
	# kfifo (live counters, evpipe --counters), so the notifier is surely
	# blocked while the reader pushes a ring buffer full of records into
	# the 4 KiB kfifo.  Then the pipe is drained and a second storm runs
	# against the live pipeline.
	export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
	"$BIN/cfqx-storm" --maps "$MAPS" --create $RING --events 0 > /dev/null
	for flavour in wait drop; do
		extra=()
		cond='.kfifo_waits > 0'
		if [ $flavour = drop ]; then
			extra=(--drop-when-full)
			cond='.kfifo_full > 0'
		fi
		live=$STATE/live-$flavour.json
		fifo=$STATE/$flavour.pipe
		# a ring buffer full of records before anyone reads (--fill:
		# a fixed number of tries; what does not fit is counted)
		"$BIN/cfqx-storm" --maps "$MAPS" --fill --events 200000 --per-trigger 64 \
			--short-every 101 --unknown-every 103 > "$STATE/s1-$flavour.json"
		stall_fifo "$fifo"	# a reader that reads nothing (yet)
		"$BIN/evpipe-tsan" --maps "$MAPS" --json "$fifo" --counters "$live" \
			--fifo-size 4096 "${extra[@]}" > "$STATE/$flavour.json" 3<&- &
		ppid=$!
		on_exit "kill $ppid"
		wait_json "$live" "$cond" 60 ||
			{ echo "FAIL: $flavour: no full kfifo ($cond) in 60 s with the sink blocked"; exit 1; }
		say "$flavour: kfifo full with the sink blocked: $(jq -c '{read, kfifo_full, kfifo_waits}' "$live")"
		resume_fifo "$fifo" "$STATE/$flavour.jsonl"	# EOF when evpipe exits
		"$BIN/cfqx-storm" --maps "$MAPS" --events 100000 --per-trigger 64 \
			--short-every 101 --unknown-every 103 > "$STATE/s2-$flavour.json"
		w=$(( $(j .written "$STATE/s1-$flavour.json") + $(j .written "$STATE/s2-$flavour.json") ))
		wait_json "$live" ".read >= $w" 60 ||
			{ echo "FAIL: $flavour: evpipe read less than $w records in 60 s"; exit 1; }
		kill -TERM $ppid
		wait $ppid
		eq "$flavour: evpipe-tsan exit status (66 = data race)" $? 0
		wait $CPID
		rm -f "$fifo"
		cat "$STATE/$flavour.json"
		check_pipeline "$STATE/$flavour.json" "$STATE/$flavour.jsonl" "$flavour"
		for s in s1 s2; do check_storm "$STATE/$s-$flavour.json"; done
		# a missed wake-up would leave records in the kfifo at SIGTERM
		check_clean "$STATE/$flavour.json" "$flavour"
		# drain the rest so the next round starts empty
		"$BIN/evpipe" --maps "$MAPS" --once > "$STATE/rest-$flavour.json"
		eq "$flavour: read by both == written" \
			"$(( $(j .read "$STATE/$flavour.json") + $(j .read "$STATE/rest-$flavour.json") ))" \
			"$w"
	done
	check "drop mode dropped some records at the 4 KiB kfifo (and counted them)" \
		[ "$(j .kfifo_full "$STATE/drop.json")" -gt 0 ]
	check "wait mode waited for the 4 KiB kfifo" \
		[ "$(j .kfifo_waits "$STATE/wait.json")" -gt 0 ]
	# Shutdown with a stalled sink under TSan: the abort path (a signal
	# interrupting the notifier's write) and its counts.
	stall_fifo "$STATE/stall"
	"$BIN/evpipe-tsan" --maps "$MAPS" --json "$STATE/stall" \
		--counters "$STATE/live-stall.json" \
		--fifo-size 4096 > "$STATE/stall.json" 3<&- &
	ppid=$!
	on_exit "kill $ppid"
	"$BIN/cfqx-storm" --maps "$MAPS" --fill --events 100000 --per-trigger 64 \
		> "$STATE/s-stall.json"
	# SIGTERM once the reader has waited for the kfifo: the pipe is full
	# and the notifier blocked in its write (a SIGTERM before that found
	# too few lines to fill the pipe, and none failed).
	wait_json "$STATE/live-stall.json" '.kfifo_waits > 0' 60 ||
		{ echo "FAIL: stalled: no wait for the kfifo in 60 s with the sink blocked"; exit 1; }
	kill -TERM $ppid
	wait $ppid
	eq "stalled: evpipe-tsan exit status (66 = data race)" $? 0
	resume_fifo "$STATE/stall" "$STATE/stall.jsonl"
	wait $CPID
	cat "$STATE/stall.json"
	check_pipeline "$STATE/stall.json" "$STATE/stall.jsonl" stalled
	check "stalled: the lines the sink could not take are counted" \
		[ "$(j .failed "$STATE/stall.json")" -gt 0 ]
	;;
sinkfail)
	# A file size limit (RLIMIT_FSIZE, SIGXFSZ ignored): after ~1 MiB
	# every write fails with EFBIG, the first one part way through a line.
	# The error paths run under ASan/UBSan.
	CFQX=$ROOT/build/cfqx-asan
	"$BIN/cfqx-storm" --maps "$MAPS" --create $RING --events 0 > /dev/null
	mkdir -p "$STATE/d"
	(ulimit -f 1024; exec "$CFQX" run --no-load --no-uevents --maps "$MAPS" \
		--state-dir "$STATE/d" --json "$STATE/out.jsonl" 2> "$STATE/d.stderr") &
	DPID=$!
	on_exit "kill -TERM $DPID"
	wait_json "$STATE/d/daemon.json" '.running == true' 10 ||
		{ say "FAIL: daemon did not start"; exit 1; }
	"$BIN/cfqx-storm" --maps "$MAPS" --events 300000 --per-trigger 256 \
		> "$STATE/storm.json" || exit 1
	w=$(j .written "$STATE/storm.json")
	wait_json "$STATE/d/daemon.json" ".read >= $w" 60 ||
		say "daemon did not read everything within 60 s"
	stop_daemon "$STATE/d" 1
	c=$STATE/d/daemon.json
	cat "$c" "$STATE/d.stderr"
	eq "daemon read == generator written" "$(j .read "$c")" "$w"
	check_pipeline "$c" "$STATE/out.jsonl" "failing sink"
	check_seq "$STATE/out.jsonl" "failing sink"
	check "the sink failed: lines lost and counted" \
		[ "$(j .json_failed "$c")" -gt 0 -a "$(j .sink_errors "$c")" -gt 0 ]
	eq "failed == json_failed (the only sink)" "$(j .failed "$c")" "$(j .json_failed "$c")"
	check "the file stopped at the size limit" \
		[ "$(stat -c %s "$STATE/out.jsonl")" -le $((1024 * 1024)) ]
	check "the daemon said so while running (File too large)" \
		grep -q "JSON sink: File too large" "$STATE/d.stderr"
	check "and at exit, with the count" \
		grep -q "^cfqx run: $(j .json_failed "$c") JSON lines lost" "$STATE/d.stderr"
	;;
sinkstall)
	CFQX=$ROOT/build/cfqx-asan	# the abort path under ASan/UBSan
	"$BIN/cfqx-storm" --maps "$MAPS" --create $RING --events 0 > /dev/null
	# 1. A FIFO held open by us and never read: the daemon's write
	#    blocks, the kfifo fills, the reader waits; SIGTERM must end it in
	#    bounded time (drain 1 s, then the stalled write is abandoned).
	stall_fifo "$STATE/sink"
	start_daemon "$CFQX" "$STATE/d" "$STATE/sink"
	"$BIN/cfqx-storm" --maps "$MAPS" --fill --events 2000000 --per-trigger 256 \
		> "$STATE/storm.json"
	wait_json "$STATE/d/daemon.json" '.kfifo_waits >= 1' 30 ||
		say "the reader never waited for the kfifo"
	stop_daemon "$STATE/d" 1
	say "SIGTERM to exit with a stalled sink: $STOP_MS ms (bound: 2000 ms)"
	check "exited in bounded time (hang guard: 15 s)" [ "$STOP_MS" -lt 15000 ]
	[ "$STOP_MS" -lt 2000 ] || say "WARNING: slower than 2 s (a loaded machine?)"
	resume_fifo "$STATE/sink" "$STATE/got.jsonl"
	wait $CPID
	c=$STATE/d/daemon.json
	cat "$c" "$STATE/d.stderr"
	check_pipeline "$c" "$STATE/got.jsonl" "stalled sink"
	check_seq "$STATE/got.jsonl" "stalled sink"
	check "what the kfifo held at shutdown is counted" \
		[ "$(j .shutdown_dropped "$c")" -gt 0 ]
	check "the cut batch is counted" [ "$(j .json_failed "$c")" -gt 0 ]
	check "the daemon said the sink stalled" \
		grep -q "JSON sink: stalled at shutdown" "$STATE/d.stderr"
	# empty the ring for the next part
	"$CFQX" run --no-load --no-uevents --once --maps "$MAPS" \
		--state-dir "$STATE/drain" --json /dev/null
	# 2. A sink that stalls during a storm and then resumes: nothing lost
	#    in wait mode; in drop mode the kfifo drops are counted.
	for flavour in wait drop; do
		extra=()
		[ $flavour = drop ] && extra=(--drop-when-full --fifo-size 65536)
		stall_fifo "$STATE/sink"
		start_daemon "$CFQX" "$STATE/$flavour" "$STATE/sink" "${extra[@]}"
		"$BIN/cfqx-storm" --maps "$MAPS" --fill --events 400000 \
			--per-trigger 256 > "$STATE/s-$flavour.json"
		wait_json "$STATE/$flavour/daemon.json" '.read >= 1' 30
		resume_fifo "$STATE/sink" "$STATE/$flavour.jsonl"
		w=$(j .written "$STATE/s-$flavour.json")
		wait_json "$STATE/$flavour/daemon.json" ".read >= $w" 60 ||
			say "daemon did not read everything within 60 s"
		wait_json "$STATE/$flavour/daemon.json" \
			'.valid == .json_lines + .json_failed' 60
		stop_daemon "$STATE/$flavour"
		wait $CPID
		c=$STATE/$flavour/daemon.json
		cat "$c"
		check_pipeline "$c" "$STATE/$flavour.jsonl" "$flavour, resumed sink"
		check_clean "$c" "$flavour, resumed sink"
		eq "$flavour: read == written" "$(j .read "$c")" "$w"
		check_storm "$STATE/s-$flavour.json"
	done
	check "wait mode: the stall made the reader wait" \
		[ "$(j .kfifo_waits "$STATE/wait/daemon.json")" -gt 0 ]
	check "drop mode: the stall dropped (and counted) at the kfifo" \
		[ "$(j .kfifo_full "$STATE/drop/daemon.json")" -gt 0 ]
	;;
once)
	"$BIN/cfqx-storm" --maps "$MAPS" --create $RING --events 0 > /dev/null
	# a producer that does not stop: --once must still finish.  Run 1
	# starts only once the producer has written (--ready), so every run
	# really overlaps a live producer and has something to read.
	"$BIN/cfqx-storm" --maps "$MAPS" --until-signal --per-trigger 64 \
		--ready "$STATE/producing" > /dev/null &
	spid=$!
	on_exit "kill $spid"
	wait_for 60 test -e "$STATE/producing" ||
		{ say "FAIL: the producer wrote nothing within 60 s"; exit 1; }
	for i in 1 2 3; do
		timeout 60 "$CFQX" run --no-load --no-uevents --once --maps "$MAPS" \
			--state-dir "$STATE/o$i" --json "$STATE/o$i.jsonl"
		eq "--once run $i with a live producer: exit status (124: never finished)" $? 0
		check_pipeline "$STATE/o$i/daemon.json" "$STATE/o$i.jsonl" "--once run $i"
		check_clean "$STATE/o$i/daemon.json" "--once run $i"
		check "--once run $i read something" [ "$(j .read "$STATE/o$i/daemon.json")" -gt 0 ]
	done
	kill $spid
	;;
*)
	echo "storm.sh: unknown mode $mode"
	exit 2
	;;
esac
finish
