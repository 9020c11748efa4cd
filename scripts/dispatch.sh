#!/usr/bin/env bash
# Compares the open model's dispatch precision (null driver, workload C) of
# two dbrig binaries side by side, alternating runs so machine noise hits both:
#   scripts/dispatch.sh OLD_DBRIG NEW_DBRIG [SECONDS] [ROUNDS] [CLIENTS] [RATES]
# Prints per binary, rate and round: achieved ops/s, response time p50/p99,
# dispatch lag p50/p99 (µs) and the process's CPU (user+system seconds); for
# binaries that report it, the widest spin window used (µs), the leaders'
# starts later than 50 µs whose sleep woke too late / whose lead came too
# late / that were late while spinning (the machine stalled the thread), and
# the sleeps' p99.9 lateness.
# Against the null driver every µs of response time is the harness's own.
set -euo pipefail
old=$1 new=$2 secs=${3:-5} rounds=${4:-3} clients=${5:-16} rates=${6:-"1000 20000 100000"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() { # binary rate → one line
	local bin=$1 rate=$2
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" "$bin" run --driver null -P workloadc -p recordcount=1000 -p operationcount=0 \
		--rate "$rate" --clients "$clients" --duration "${secs}s" --store "$tmp/$(basename "$bin").db" --quiet --json 2>/dev/null >"$tmp/out"
	python3 - "$tmp/out" "$tmp/cpu" "$tmp/$(basename "$bin").db" <<'PY'
import json, re, sqlite3, sys
d = json.load(open(sys.argv[1])); o = d["ops"]["OVERALL"]; l = d.get("dispatch_lag") or {}
u, s = map(float, open(sys.argv[2]).read().split()[-2:])
# The measure phase's end detail (binaries that report it): the spin
# window used and the leaders' late starts (> 50 µs) by cause.
det = ""
try:
    c = sqlite3.connect(sys.argv[3])
    row = c.execute("select detail from events where kind='phase_end' and name='measure' order by id desc limit 1").fetchone()
    kv = dict(re.findall(r"(\w+)=(\S+)", row[0] if row else ""))
    if "spin_window_max_us" in kv:
        det = "%6s %5s/%s/%-5s %6s" % (kv["spin_window_max_us"], kv["late_after_sleep"], kv.get("late_lead", "-"), kv["late_after_spin"], kv.get("sleep_late_p999_us", "-"))
except sqlite3.Error:
    pass
print("%12.1f %9s %9s %8s %8s %7.2f %s" % (o["throughput"], o["p50_us"], o["p99_us"], l.get("p50_us", "-"), l.get("p99_us", "-"), u + s, det))
PY
}
printf '%-5s %-4s %8s %12s %9s %9s %8s %8s %7s %6s %14s %6s\n' round bin rate achieved resp_p50 resp_p99 lag_p50 lag_p99 cpu_s win_us late_sl/ld/sp sl_999
for r in $(seq "$rounds"); do
	for rate in $rates; do
		printf '%-5s %-4s %8s %s\n' "$r" old "$rate" "$(one "$old" "$rate")"
		printf '%-5s %-4s %8s %s\n' "$r" new "$rate" "$(one "$new" "$rate")"
	done
done
