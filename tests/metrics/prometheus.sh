#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Prometheus metrics with the real tools (`make test-metrics`, root):
# three users do O_DIRECT I/O of known sizes on a loop device over tmpfs
# under the uid policy; `cfqx stats --prometheus` must pass
# `promtool check metrics` and carry exactly those bytes and requests;
# `cfqx run --metrics` serves the same on loopback (non-loopback refused
# without --metrics-public, bad requests 404/405, a busy port one error
# line); and a real Prometheus server started here scrapes it, and its
# HTTP API returns the per-group series with the exact values.  Everything
# it starts or makes (servers, daemon, cfqx instance, loop device) is
# removed on exit, failure or Ctrl-C.  Refuses to touch a cfqx instance
# it did not load.
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
CFQX=${CFQX:-$ROOT/build/cfqx}
. "$ROOT/tests/lib/check.sh"
BS=65536
declare -A READS=([65534]=40 [43117]=24)	# uid -> 64 KiB O_DIRECT reads
WRITER=43118 WRITES=8				# uid, 64 KiB O_DIRECT writes

need_tools promtool prometheus curl jq setpriv losetup ss
for u in "${!READS[@]}" "$WRITER"; do
	[ "$u" = 65534 ] || ! getent passwd "$u" >/dev/null ||
		die "uid $u has a passwd entry; the test wants it nameless"
done

work=$(mktemp -d /dev/shm/cfqx-promtest.XXXXXX)
daemon="" prom=""
stop() {	# stop PID: TERM, then KILL after 5 s
	local i
	kill -TERM "$1" 2>/dev/null || return 0
	for ((i = 0; i < 50; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}
cleanup() {
	set +e
	[ -n "$prom" ] && stop "$prom"
	[ -n "$daemon" ] && stop "$daemon"
	cfqx_off_loop
	rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

free_port() {
	local p i
	for ((i = 0; i < 100; i++)); do
		p=$((20000 + RANDOM % 40000))
		[ -z "$(ss -Htln "sport = :$p")" ] && { echo "$p"; return 0; }
	done
	return 1
}

# ---- the workload ---------------------------------------------------
cfqx_on_loop "$work" uid
for u in "${!READS[@]}"; do
	setpriv --reuid "$u" --regid "$u" --clear-groups \
		dd if="$loop" of=/dev/null bs=$BS count="${READS[$u]}" \
		iflag=direct status=none || die "dd as uid $u"
done
setpriv --reuid $WRITER --regid $WRITER --clear-groups \
	dd if=/dev/zero of="$loop" bs=$BS count=$WRITES oflag=direct \
	conv=notrunc status=none || die "dd as uid $WRITER"

# value NAME LABELS FILE: the sample of NAME whose labels contain LABELS
value() {
	grep -F "$1{" "$3" | grep -F "$2" | awk '{print $NF}' | head -1
}
labels() {	# the full label set cfqx gives uid $1 on $dev
	local name=""
	[ "$1" = 65534 ] && name=nobody
	printf 'device="%s",group_by="uid",id="%s",name="%s",kthread="false"' \
		"$dev" "$1" "$name"
}

# ---- cfqx stats --prometheus ----------------------------------------
echo "cfqx stats --prometheus"
"$CFQX" stats --prometheus > "$work/stats.prom" || die "cfqx stats --prometheus"
out=$(promtool check metrics < "$work/stats.prom" 2>&1)
eq "promtool check metrics (exit status, lint output)" "$?:$out" "0:"
for u in "${!READS[@]}"; do
	eq "uid $u read bytes" \
		"$(value cfqx_group_read_bytes_total "$(labels "$u")" "$work/stats.prom")" \
		$((READS[$u] * BS))
	eq "uid $u read requests" \
		"$(value cfqx_group_read_requests_total "$(labels "$u")" "$work/stats.prom")" \
		"${READS[$u]}"
	eq "uid $u service time histogram count" \
		"$(value cfqx_group_service_time_seconds_count "$(labels "$u")" "$work/stats.prom")" \
		"${READS[$u]}"
	eq "uid $u le=+Inf bucket" \
		"$(value cfqx_group_service_time_seconds_bucket "$(labels "$u"),le=\"+Inf\"" "$work/stats.prom")" \
		"${READS[$u]}"
done
eq "uid $WRITER write bytes" \
	"$(value cfqx_group_write_bytes_total "$(labels $WRITER)" "$work/stats.prom")" \
	$((WRITES * BS))
sum=$(awk -v d="device=\"$dev\"" '$1 ~ /^cfqx_group_read_bytes_total\{/ && index($1, d) { s += $2 } END { print s + 0 }' "$work/stats.prom")
eq "sum over groups == device read bytes" "$sum" \
	"$(value cfqx_device_read_bytes_total "device=\"$dev\"" "$work/stats.prom")"

# ---- bad command lines: one line, exit 2, nothing started ------------
echo "bad command lines"
port=$(free_port) || die "no free port"
bad() {		# bad DESCRIPTION WANTED-TEXT ARGS...
	local what=$1 want=$2 err rc
	shift 2
	err=$("$CFQX" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
	   [[ $err == *"$want"* ]]; then
		say "ok: $what ($err)"
	else
		say "FAIL: $what: exit $rc, '$err'"
		FAILS=$((FAILS + 1))
	fi
}
bad "non-loopback address refused" "--metrics-public" \
	run --no-uevents --metrics "0.0.0.0:$port" --state-dir "$work/s0"
bad "non-loopback IPv6 refused" "--metrics-public" \
	run --no-uevents --metrics "[::]:$port" --state-dir "$work/s0"
bad "--metrics-public alone" "needs --metrics" run --metrics-public
bad "port 0" "bad port" run --metrics 127.0.0.1:0
bad "a host name" "bad address" run --metrics example.com:80
bad "--json with --prometheus" "exclude" stats --json --prometheus
eq "no listener left on port $port" "$(ss -Htln "sport = :$port")" ""

# ---- cfqx run --metrics ----------------------------------------------
echo "cfqx run --metrics 127.0.0.1:$port"
"$CFQX" run --no-uevents --metrics "127.0.0.1:$port" \
	--state-dir "$work/state" > "$work/daemon.out" 2>&1 &
daemon=$!
url=http://127.0.0.1:$port/metrics
wait_for 30 curl -sf -o "$work/scrape.prom" "$url" ||
	die "no answer from $url: $(cat "$work/daemon.out")"
eq "HTTP content type" \
	"$(curl -s -o /dev/null -w '%{content_type}' "$url")" \
	"text/plain; version=0.0.4; charset=utf-8"
out=$(promtool check metrics < "$work/scrape.prom" 2>&1)
eq "promtool check metrics on /metrics" "$?:$out" "0:"
eq "/metrics read bytes of uid 65534" \
	"$(value cfqx_group_read_bytes_total "$(labels 65534)" "$work/scrape.prom")" \
	$((READS[65534] * BS))
eq "daemon pipeline counters exported" \
	"$(grep -c '^cfqx_daemon_read_total ' "$work/scrape.prom")" 1
eq "POST /metrics" "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url")" 405
eq "GET /other" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/other")" 404
err=$("$CFQX" run --no-uevents --metrics "127.0.0.1:$port" \
	--state-dir "$work/s1" 2>&1 >/dev/null)
rc=$?
[[ $rc == 1 && $err == *"cannot listen"* ]] && say "ok: busy port: $err" ||
	{ say "FAIL: busy port: exit $rc, '$err'"; FAILS=$((FAILS + 1)); }

# ---- a real Prometheus server scraping it -----------------------------
pport=$(free_port) || die "no free port"
echo "prometheus on 127.0.0.1:$pport scraping $url"
cat > "$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: cfqx
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
promtool check config "$work/prometheus.yml" >/dev/null ||
	die "promtool check config"
prometheus --config.file="$work/prometheus.yml" \
	--storage.tsdb.path="$work/tsdb" \
	--web.listen-address="127.0.0.1:$pport" \
	> "$work/prometheus.log" 2>&1 &
prom=$!
api=http://127.0.0.1:$pport/api/v1
wait_for 60 curl -sf -o /dev/null "http://127.0.0.1:$pport/-/ready" ||
	die "prometheus not ready: $(tail -5 "$work/prometheus.log")"
query() {	# query PROMQL -> JSON in $work/q.json
	curl -sf -o "$work/q.json" --data-urlencode "query=$1" "$api/query"
}
sel="cfqx_group_read_bytes_total{device=\"$dev\",group_by=\"uid\"}"
has_series() {
	query "$sel" && [ "$(jq '.data.result | length' "$work/q.json")" -ge 2 ]
}
wait_for 60 has_series || die "prometheus has no $sel: $(cat "$work/q.json" 2>/dev/null)"
query "up{job=\"cfqx\"}"
eq "prometheus target up" "$(jq -r '.data.result[0].value[1]' "$work/q.json")" 1
query "$sel"
for u in "${!READS[@]}"; do
	eq "prometheus: uid $u read bytes" \
		"$(jq -r --arg id "$u" '.data.result[] | select(.metric.id == $id) | .value[1]' "$work/q.json")" \
		$((READS[$u] * BS))
done
eq "prometheus: uid 65534 name label" \
	"$(jq -r '.data.result[] | select(.metric.id == "65534") | .metric.name' "$work/q.json")" nobody
query "cfqx_group_write_bytes_total{device=\"$dev\",id=\"$WRITER\"}"
eq "prometheus: uid $WRITER write bytes" \
	"$(jq -r '.data.result[0].value[1]' "$work/q.json")" $((WRITES * BS))
query "cfqx_group_service_time_seconds_count{device=\"$dev\",id=\"43117\"}"
eq "prometheus: uid 43117 service time count" \
	"$(jq -r '.data.result[0].value[1]' "$work/q.json")" "${READS[43117]}"
query "histogram_quantile(1, cfqx_group_service_time_seconds_bucket{device=\"$dev\",id=\"43117\"}) > 0"
eq "prometheus: histogram_quantile over the buckets" \
	"$(jq '.data.result | length' "$work/q.json")" 1

stop "$prom"
prom=""
kill -TERM "$daemon"
wait "$daemon"
eq "cfqx run exit status after SIGTERM" "$?" 0
daemon=""

finish
