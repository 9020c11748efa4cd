#!/usr/bin/env bash
# dbrig against go-ycsb on Redis, YCSB workloads A (50 % reads, 50 % updates)
# and C (reads), zipfian keys, the same record count and clients, closed
# model, alternating runs so machine noise hits both. Each tool reads its own
# copy of the records (the key layouts differ: go-ycsb's "table/key" hashes,
# dbrig's own), loaded once by the tool itself.
#
#   scripts/redis-vs-goycsb.sh DBRIG [SECONDS] [ROUNDS] [CLIENTS]
#     e.g. scripts/redis-vs-goycsb.sh ./dbrig 5 3 16
#
# Prints per round and workload the ops/s of each dbrig variant and of go-ycsb,
# the ratio variant/go-ycsb, and the client's CPU per operation (user +
# system µs of the tool's process / operations; the server's CPU is not in
# it). Variants (VARIANTS, default all four): CLIENT/UPDATE-MODE with CLIENT
# go-redis or rueidis and the update mode
#   checked  YCSB's update of an existing record: one EVALSHA of a Lua
#            EXISTS+HSET; a missing key is not_found and is not created
#   hset     one plain HSET, no script: a missing key is created (holding
#            the updated fields only), as go-ycsb's and YCSB's own binding
# go-ycsb's update is an HSET (the hset semantics). WORKLOADS (default
# "a c"; b too) are YCSB's: a 50/50 read/update, b 95/5, c reads.
# Environment: DBRIG_REDIS_ADDR (host:port),
# DBRIG_REDIS_PASSWORD (optional, never printed), GOYCSB (default
# /work/peers/go-ycsb/bin/go-ycsb, else go-ycsb on PATH; see
# scripts/pg-vs-peers.sh for building it), RECORDS (default 100000).
# Note: go-ycsb's hash Read drops the error of its HMGET (a failed read counts
# as a success); a run whose server refuses reads would look fast there.
set -euo pipefail
: "${DBRIG_REDIS_ADDR:?set DBRIG_REDIS_ADDR}"
dbrig=${1:?usage: redis-vs-goycsb.sh DBRIG [SECONDS] [ROUNDS] [CLIENTS]}
secs=${2:-5}
rounds=${3:-3}
clients=${4:-16}
records=${RECORDS:-100000}
goycsb=${GOYCSB:-/work/peers/go-ycsb/bin/go-ycsb}
[ -x "$goycsb" ] || goycsb=$(command -v go-ycsb || true)
[ -n "$goycsb" ] || { echo "go-ycsb not found (set GOYCSB)" >&2; exit 1; }
pw=${DBRIG_REDIS_PASSWORD:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

dprops=(-p redis.addr="$DBRIG_REDIS_ADDR" -p table=rvg_usertable -p recordcount="$records")
[ -n "$pw" ] && dprops+=(-p redis.password="$pw")
gprops=(-p redis.addr="$DBRIG_REDIS_ADDR" -p table=rvg_goycsb -p recordcount="$records" -p threadcount="$clients"
	-p workload=core -p requestdistribution=zipfian -p readallfields=true -p writeallfields=false
	-p scanproportion=0 -p insertproportion=0)
[ -n "$pw" ] && gprops+=(-p redis.password="$pw")

echo "loading $records records for each tool" >&2
"$dbrig" load --driver redis -P workloada "${dprops[@]}" --clients 4 --recreate --quiet --store "$tmp/load.db" >/dev/null
"$goycsb" load redis "${gprops[@]}" -p operationcount="$records" -p insertcount="$records" >/dev/null 2>&1

cpu() { python3 -c 'import sys; u, s = map(float, open(sys.argv[1]).read().split()[-2:]); print(u + s)' "$tmp/cpu"; }

run_dbrig() { # workload update-mode client → "ops/s cpu_us_per_op"
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" "$dbrig" run --driver redis -P "$1" "${dprops[@]}" -p redis.update="$2" -p redis.client="$3" \
		-p operationcount=0 --skip-load --clients "$clients" --duration "${secs}s" \
		--store "$tmp/run-$RANDOM.db" --quiet --json 2>/dev/null >"$tmp/out"
	python3 - "$tmp/out" "$(cpu)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); o = d["ops"]["OVERALL"]
err = o.get("errors", 0)
print("%.0f %.1f%s" % (o["throughput"], float(sys.argv[2]) * 1e6 / max(o["count"], 1), "" if not err else " (%d errors)" % err))
PY
}
run_goycsb() { # read-proportion → "ops/s cpu_us_per_op"; SIGTERM prints go-ycsb's final summary
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" timeout --foreground -s TERM "$secs" "$goycsb" run redis "${gprops[@]}" \
		-p readproportion="$1" -p updateproportion="$(python3 -c "print(round(1 - $1, 2))")" \
		-p operationcount=1000000000 >"$tmp/out" 2>&1 || true
	python3 - "$tmp/out" "$(cpu)" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.findall(r"TOTAL\s+- Takes\(s\): ([0-9.]+), Count: ([0-9]+), OPS: ([0-9.]+)", t)
if not m:
    print("- -"); sys.exit()
_, n, ops = m[-1]
print("%.0f %.1f" % (float(ops), float(sys.argv[2]) * 1e6 / max(int(n), 1)))
PY
}
ratio() { python3 -c 'import sys
try: print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))
except (ValueError, ZeroDivisionError): print("-")' "$1" "$2"; }

variants=(${VARIANTS:-go-redis/checked go-redis/hset rueidis/checked rueidis/hset})
workloads=(${WORKLOADS:-a c})
readprop() { case $1 in a) echo 0.5 ;; b) echo 0.95 ;; c) echo 1 ;; *) echo "workload $1: expected a, b or c" >&2; exit 2 ;; esac; }
for w in "${workloads[@]}"; do readprop "$w" >/dev/null; done
echo "update modes: checked = Lua EXISTS+HSET, missing key not_found and not created; hset = plain HSET, missing key created (go-ycsb's update is an HSET)"
hdr="round workload"
for v in "${variants[@]}"; do hdr+=" $v"; done
hdr+=" go-ycsb |"
for v in "${variants[@]}"; do hdr+=" ${v}/ycsb"; done
hdr+=" | cpu µs/op:"
for v in "${variants[@]}"; do hdr+=" $v"; done
echo "$hdr go-ycsb"
for r in $(seq "$rounds"); do
	for w in "${workloads[@]}"; do
		ops=() cpus=()
		# go-ycsb runs in the middle of the dbrig variants, so drift in the
		# machine's load hits both sides alike.
		half=$(( ${#variants[@]} / 2 ))
		for i in "${!variants[@]}"; do
			if [ "$i" = "$half" ]; then read -r g gc < <(run_goycsb "$(readprop "$w")"); fi
			v=${variants[$i]}
			read -r o c < <(run_dbrig "workload$w" "${v#*/}" "${v%/*}")
			ops+=("$o") cpus+=("$c")
		done
		line="$r $w/$clients ${ops[*]} $g |"
		for o in "${ops[@]}"; do line+=" $(ratio "$o" "$g")"; done
		echo "$line | ${cpus[*]} $gc"
	done
done
