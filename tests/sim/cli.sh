#!/usr/bin/env bash
# `cfqx sim` and `cfqx fairness` through a real cfqx binary (the ASan+UBSan
# build in test-sim-asan): bad input gets exactly one "cfqx: ..." line
# naming the problem (file:line for job files) and a non-zero exit; good
# input gives the documented JSON keys, and the same input the same bytes.
# Usage: cli.sh CFQX_BINARY
set -u
cfqx=$1
[ -x "$cfqx" ] || { echo "cli.sh: no cfqx binary at '$cfqx'"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "not ok - $*"; fails=$((fails + 1)); }
ok() { echo "ok - $*"; }

# expect_err DESCRIPTION EXIT PATTERN ARGS...: one stderr line matching
# PATTERN, exit code EXIT, nothing on stdout.
expect_err() {
	local d=$1 want=$2 pat=$3 rc
	shift 3
	"$cfqx" "$@" > "$dir/out" 2> "$dir/err"
	rc=$?
	if [ "$rc" -ne "$want" ] || [ "$(wc -l < "$dir/err")" -ne 1 ] ||
	   ! grep -q -- "$pat" "$dir/err" || [ -s "$dir/out" ]; then
		fail "$d (exit $rc, stderr: $(head -c 300 "$dir/err"))"
	else
		ok "$d: $(cat "$dir/err")"
	fi
}

cat > "$dir/good.fio" <<'EOF'
; two users: one greedy, one 1-deep reader
[global]
filename=/dev/nullb0
direct=1
bs=64k
size=1g
runtime=1
time_based
[greedy]
ioengine=libaio
iodepth=16
rw=randread
uid=1001
[light]
rw=randread
offset=1g
uid=1002
EOF
printf '[a]\nrw=read\nbs=4k\nfoo=1\n' > "$dir/badkey.fio"
printf '[a]\nrw=read\n\nbs=4097\n' > "$dir/badbs.fio"
printf '[a]\nrw=sideways\n' > "$dir/badrw.fio"
printf 'bs=4k\n[a]\n' > "$dir/nosection.fio"
printf '[a]\nruntime=1\nsize=300g\nrw=read\n' > "$dir/toobig.fio"

expect_err "unknown job key names file:line" 1 "badkey.fio:4: unsupported key 'foo'" sim "$dir/badkey.fio"
expect_err "bad bs names file:line" 1 "badbs.fio:4: bad bs value '4097'" sim "$dir/badbs.fio"
expect_err "bad rw names file:line" 1 "badrw.fio:2: bad rw value 'sideways'" sim "$dir/badrw.fio"
expect_err "key outside a section" 1 "nosection.fio:1: 'bs=4k' outside a section" sim "$dir/nosection.fio"
expect_err "job beyond the device" 1 "beyond the device" sim "$dir/toobig.fio"
expect_err "missing job file" 1 "No such file" sim "$dir/none.fio"
expect_err "no job file" 2 "no job file" sim
expect_err "unknown model" 2 "bad --device: unknown device model 'floppy'" sim "$dir/good.fio" --device floppy
expect_err "unknown device parameter" 2 "nullb: unknown parameter 'rpm'" sim "$dir/good.fio" --device nullb,rpm=7200
expect_err "bad device value" 2 "hdd: bad rpm value 'fast'" sim "$dir/good.fio" --device hdd,rpm=fast
expect_err "time without a unit" 2 "nullb: bad lat value '200'" sim "$dir/good.fio" --device nullb,lat=200
expect_err "bad scheduler" 2 "bad --sched 'cfq'" sim "$dir/good.fio" --sched cfq
expect_err "bad policy key" 2 "bad --policy 'user'" sim "$dir/good.fio" --policy user
expect_err "bad seed" 2 "bad --seed '-1'" sim "$dir/good.fio" --seed -1
expect_err "freeze without a stop" 2 "bad --freeze '4ms'" sim "$dir/good.fio" --freeze 4ms
expect_err "freeze of nothing" 2 "bad --freeze '4ms/0'" sim "$dir/good.fio" --freeze 4ms/0
expect_err "freeze of an hour" 2 "bad --freeze '1h/1ms'" sim "$dir/good.fio" --freeze 1h/1ms
expect_err "cpu delay not a time" 2 "bad --cpu-delay 'fast'" sim "$dir/good.fio" --cpu-delay fast
expect_err "cpu delay of an hour" 2 "bad --cpu-delay '1h'" sim "$dir/good.fio" --cpu-delay 1h
expect_err "freeze of no vCPU" 2 "bad --freeze '4ms/4ms/0'" sim "$dir/good.fio" --freeze 4ms/4ms/0
expect_err "freeze of too many vCPUs" 2 "bad --freeze '4ms/4ms/9'" sim "$dir/good.fio" --freeze 4ms/4ms/9
expect_err "bad policy field" 2 "quantum" sim "$dir/good.fio" --quantum 0
expect_err "unknown option" 2 "unknown option '--fast'" sim "$dir/good.fio" --fast
expect_err "fairness: bad number" 2 "bad --got '1 x'" fairness --demand "1 2" --got "1 x"
expect_err "fairness: counts differ" 2 "the same count (2, 1)" fairness --demand "1 2" --got "1"
expect_err "fairness: time above 1" 2 "bad --solo-time '1.5 1'" fairness --demand "1 2" --got "1 1" --solo-time "1.5 1"
expect_err "fairness: no groups" 2 "one number per group" fairness
expect_err "fairness: bad capacity" 2 "bad --capacity '0'" fairness --capacity 0 --demand 1 --got 1

for s in cfqx fifo; do
	for d in nullb ssd hdd; do
		if "$cfqx" sim "$dir/good.fio" --sched $s --device $d --policy uid --json > "$dir/a.json" 2> "$dir/err" &&
		   "$cfqx" sim "$dir/good.fio" --sched $s --device $d --policy uid --json > "$dir/b.json" &&
		   cmp -s "$dir/a.json" "$dir/b.json" &&
		   jq -e '(.total_kib_s > 0) and (.jain > 0) and (.maxmin_jain > 0) and
			(.worst_share >= 0) and (.groups | length == 2) and
			([.groups[] | has("name","key","bytes","kib_s","iops","lat_p50_us",
			  "lat_p99_us","lat_max_us","demand_kib_s","fair_kib_s","share")] | all)' \
			"$dir/a.json" > /dev/null && [ ! -s "$dir/err" ]; then
			ok "sim --sched $s --device $d: JSON keys, same bytes twice"
		else
			fail "sim --sched $s --device $d: $(head -c 300 "$dir/err")"
		fi
	done
done
# a busy host: the guest stands still about half the time, the same way twice
if "$cfqx" sim "$dir/good.fio" --freeze 4ms/4ms --json > "$dir/a.json" &&
   "$cfqx" sim "$dir/good.fio" --freeze 4ms/4ms --json > "$dir/b.json" &&
   cmp -s "$dir/a.json" "$dir/b.json" &&
   jq -e '(.frozen_s > 0.25 * .duration_s) and (.frozen_s < 0.75 * .duration_s)' "$dir/a.json" > /dev/null &&
   "$cfqx" sim "$dir/good.fio" --json | jq -e '.frozen_s == 0' > /dev/null; then
	ok "sim --freeze: the guest stood still $(jq .frozen_s "$dir/a.json") of $(jq .duration_s "$dir/a.json") s, same bytes twice"
else
	fail "sim --freeze: $(head -c 300 "$dir/a.json")"
fi
# two vCPUs standing still each on its own: a different run, the same twice
if "$cfqx" sim "$dir/good.fio" --freeze 4ms/4ms/2 --json > "$dir/c.json" &&
   "$cfqx" sim "$dir/good.fio" --freeze 4ms/4ms/2 --json > "$dir/d.json" &&
   cmp -s "$dir/c.json" "$dir/d.json" && ! cmp -s "$dir/a.json" "$dir/c.json" &&
   jq -e '(.frozen_s > 0.25 * .duration_s) and (.frozen_s < 0.75 * .duration_s)' "$dir/c.json" > /dev/null; then
	ok "sim --freeze 4ms/4ms/2: each vCPU stood still $(jq .frozen_s "$dir/c.json") of $(jq .duration_s "$dir/c.json") s, same bytes twice"
else
	fail "sim --freeze 4ms/4ms/2: $(head -c 300 "$dir/c.json")"
fi
if "$cfqx" sim "$dir/good.fio" --policy uid > "$dir/t.txt" && grep -q '^uid 1001 ' "$dir/t.txt" &&
   grep -q '^total .* maxmin_jain ' "$dir/t.txt"; then
	ok "sim text table"
else
	fail "sim text table: $(cat "$dir/t.txt")"
fi
"$cfqx" sim --help | grep -q 'hdd (fair shares in device time)' && ok "sim --help lists the models" ||
	fail "sim --help"
# the issue's uid mix: 100 of 200 is a fair share, 30 of it is x = 0.3
out=$("$cfqx" fairness --capacity 200 --demand "200 200" --got "170 30")
if [ "$out" = "0.671 0.300 0.671" ]; then
	ok "fairness: the uid mix's figures ($out)"
else
	fail "fairness: '$out'"
fi
if out=$("$cfqx" fairness --json --names "a b" --demand "200 100" --got "50,50" --solo-time "1 0.25") &&
   echo "$out" | jq -e '.unit == "time" and .groups[0].name == "a" and
	.groups[0].fair == 150 and .groups[1].fair == 100' > /dev/null; then
	ok "fairness --solo-time: water-filled device time"
else
	fail "fairness --solo-time: $out"
fi
# the VM's mixes, when there are any, all go through the simulator
mixes=$(ls "$(dirname "$0")"/../mixes/*.fio 2>/dev/null || true)
if [ -n "$mixes" ]; then
	if "$(dirname "$0")"/../../scripts/sim-mixes.sh "$cfqx" $mixes > "$dir/mixes" 2>&1; then
		ok "sim-mixes: $(($(wc -l < "$dir/mixes") - 1)) mix runs"
	else
		fail "sim-mixes: $(tail -3 "$dir/mixes")"
	fi
fi
[ "$fails" -eq 0 ]
