#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Event pipeline accounting under load, on the real kernel ring buffer:
#   storm     >= 10^6 events ring buffer -> kfifo -> JSON lines through
#             `cfqx run`: read == emitted + counted drops, exactly
#   sigterm   SIGTERM in the middle of a storm: drain, exit 0, counts add up
#   malformed short records, wrong size fields, unknown kinds: counted and
#             skipped by the ASan/UBSan build of cfqx, never a crash
#   tsan      the pipeline under ThreadSanitizer, waiting and dropping
# The generator (bpf/cfqx_storm.bpf.c) shares a private events ring buffer
# and stats map pinned under /sys/fs/bpf/cfqx-evtest-PID.
. "$(dirname "$0")/lib.sh"
mode=${1:?usage: storm.sh storm|sigterm|malformed|tsan}
RING=$((4 << 20))

# Identities every pipeline run must satisfy (counters JSON in $1).
check_pipeline() {
	local c=$1 out=$2 label=$3
	local read valid mal unk full lines
	read=$(j .read "$c"); valid=$(j .valid "$c"); mal=$(j .malformed "$c")
	unk=$(j .unknown_kind "$c"); full=$(j .kfifo_full "$c")
	eq "$label: read == valid + malformed + unknown_kind + kfifo_full" \
		"$read" "$((valid + mal + unk + full))"
	eq "$label: json_lines == valid" "$(j .json_lines "$c")" "$valid"
	lines=$(wc -l < "$out")
	eq "$label: lines in the JSON file == json_lines" "$lines" "$(j .json_lines "$c")"
	eq "$label: sink errors" "$(j .sink_errors "$c")" 0
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
		--json "$out" "$@" &
	DPID=$!
	on_exit "kill -TERM $DPID"
	wait_json "$st/daemon.json" '.running == true' 10 ||
		{ say "FAIL: daemon did not start"; exit 1; }
}

stop_daemon() {		# stop_daemon STATE-DIR: SIGTERM, expect exit 0
	local rc
	kill -TERM "$DPID"
	wait "$DPID"
	rc=$?
	eq "daemon exit status after SIGTERM" "$rc" 0
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
		mkfifo "$fifo"
		exec 3<> "$fifo"	# a reader that reads nothing (yet)
		"$BIN/evpipe-tsan" --maps "$MAPS" --json "$fifo" --counters "$live" \
			--fifo-size 4096 "${extra[@]}" > "$STATE/$flavour.json" 3<&- &
		ppid=$!
		on_exit "kill $ppid"
		wait_json "$live" "$cond" 60 ||
			{ echo "FAIL: $flavour: no full kfifo ($cond) in 60 s with the sink blocked"; exit 1; }
		say "$flavour: kfifo full with the sink blocked: $(jq -c '{read, kfifo_full, kfifo_waits}' "$live")"
		cat "$fifo" > "$STATE/$flavour.jsonl" 3<&- &	# EOF when evpipe exits
		cpid=$!
		exec 3<&-
		"$BIN/cfqx-storm" --maps "$MAPS" --events 100000 --per-trigger 64 \
			--short-every 101 --unknown-every 103 > "$STATE/s2-$flavour.json"
		w=$(( $(j .written "$STATE/s1-$flavour.json") + $(j .written "$STATE/s2-$flavour.json") ))
		wait_json "$live" ".read >= $w" 60 ||
			{ echo "FAIL: $flavour: evpipe read less than $w records in 60 s"; exit 1; }
		kill -TERM $ppid
		wait $ppid
		eq "$flavour: evpipe-tsan exit status (66 = data race)" $? 0
		wait $cpid
		rm -f "$fifo"
		cat "$STATE/$flavour.json"
		check_pipeline "$STATE/$flavour.json" "$STATE/$flavour.jsonl" "$flavour"
		for s in s1 s2; do check_storm "$STATE/$s-$flavour.json"; done
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
	;;
*)
	echo "storm.sh: unknown mode $mode"
	exit 2
	;;
esac
finish
