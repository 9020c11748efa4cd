#!/usr/bin/env bash
# Issue 13's done-when, side by side: a Redis GET (workload C) at a low rate
# in the open model, response time against service time, alternating the
# client pool (1, 4) and spinwait (the default 200us; 1ms = spin through the
# whole gap at 1,000 ops/s) so machine noise hits every case:
#   scripts/redis-open-1k.sh DBRIG [SECONDS] [ROUNDS] [RATE]
# Needs DBRIG_REDIS_ADDR (and DBRIG_REDIS_PASSWORD) and the records loaded
# (recordcount=10000, e.g. once with operationcount=0 --duration 1s without
# --skip-load). Prints per case and round: response and service p50/mean/p99
# (µs) and their difference (mean: exactly the mean wait before the start,
# queueing behind the previous operation plus dispatch lag), dispatch lag
# p50/p99, the mean wait split into queueing behind busy clients and dispatch
# lag (start_wait), and the process's CPU (user+system seconds).
set -euo pipefail
bin=$1 secs=${2:-10} rounds=${3:-3} rate=${4:-1000}
: "${DBRIG_REDIS_ADDR:?set DBRIG_REDIS_ADDR}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() { # clients spinwait → one line
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" "$bin" run --driver redis -p "redis.addr=$DBRIG_REDIS_ADDR" \
		-p "redis.password=${DBRIG_REDIS_PASSWORD:-}" -P workloadc -p recordcount=10000 -p operationcount=0 \
		--rate "$rate" --clients "$1" -p "spinwait=$2" --duration "${secs}s" --warmup 2s --skip-load \
		--store "$tmp/r.db" --quiet --json 2>/dev/null >"$tmp/out"
	python3 - "$tmp/out" "$tmp/cpu" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); r = d["ops"]["OVERALL"]; s = d["service"]["OVERALL"]; l = d.get("dispatch_lag") or {}
u, c = map(float, open(sys.argv[2]).read().split()[-2:])
w = d.get("start_wait") or {}
print("%6d %6d %+5d  %6d %6d %+6d  %7d %7d %+7d  %6s %6s  %7.0f %7.0f  %6.2f" % (
    r["p50_us"], s["p50_us"], r["p50_us"] - s["p50_us"], r["mean_us"], s["mean_us"], r["mean_us"] - s["mean_us"],
    r["p99_us"], s["p99_us"], r["p99_us"] - s["p99_us"], l.get("p50_us", "-"), l.get("p99_us", "-"), w.get("queue_mean_us", -1), w.get("lag_mean_us", -1), u + c))
PY
}
printf '%-5s %-7s %-8s %6s %6s %5s  %6s %6s %6s  %7s %7s %7s  %6s %6s  %7s %7s  %6s\n' round clients spinwait \
	r_p50 s_p50 diff r_mean s_mean diff r_p99 s_p99 diff lag50 lag99 q_mean lag_mean cpu_s
for r in $(seq "$rounds"); do
	for clients in 1 4; do
		for spin in 200us 1ms; do
			printf '%-5s %-7s %-8s %s\n' "$r" "$clients" "$spin" "$(one "$clients" "$spin")"
		done
	done
done
