#!/usr/bin/env bash
# dbrig against go-ycsb's cassandra binding on the same Cassandra, YCSB
# workloads A (50 % reads, 50 % updates) and C (reads), zipfian keys, closed
# model, the same record count, clients and consistency (QUORUM, go-ycsb's
# fixed level), runs back to back so machine noise hits both. Each tool
# reads its own table in keyspace dbrig_vs (dbrig: y_id + blob fields;
# go-ycsb: YCSB_KEY + varchar fields), loaded once by the tool itself.
#
#   scripts/cassandra-vs-goycsb.sh DBRIG [SECONDS] [ROUNDS] [CLIENTS...]
#     e.g. DBRIG_HOSTS=127.0.0.1:19042 scripts/cassandra-vs-goycsb.sh ./dbrig 10 1 1 4 16
#
# First the bulk load: per round and loader count (LOADERS, default the
# CLIENTS), each tool loads RECORDS records into its fresh table (dbrig
# --recreate, go-ycsb dropdata=true), the one starting alternating between
# rounds; the line shows each tool's records/s as it reports it (its load
# phase, without connecting and creating the table), the ratio, each
# process's wall time and CPU per record. dbrig loads batches of 100
# records per loader, sent as unlogged batches of cassandra.loadbatch (4)
# records of one replica set, cassandra.loadinflight (32) requests in flight
# across the loaders; go-ycsb one insert at a time per thread; so the line
# also shows dbrig with as many requests in flight as go-ycsb
# (cassandra.loadinflight=LOADERS) and its ratio. The last load of each
# tool is what the runs read.
# Then per round, workload and clients the ops/s of dbrig and go-ycsb, the
# ratio dbrig/go-ycsb, and each tool's CPU per operation (user + system µs
# of its process / operations). DBRIG_HOSTS: one node's host:port (go-ycsb's
# cassandra.cluster takes it as is). GOYCSB: go-ycsb built from its module
# (github.com/pingcap/go-ycsb; see scripts/pg-vs-peers.sh), else go-ycsb on
# PATH. RECORDS (default 20000).
# WORKLOADS: the workloads run after the load (default "a c"; "" for the
# load alone).
# Differences: go-ycsb routes round-robin (gocql's default; dbrig token-aware)
# and counts a missing key on Read as a success; neither retries.
set -euo pipefail
: "${DBRIG_HOSTS:?set DBRIG_HOSTS}"
dbrig=${1:?usage: cassandra-vs-goycsb.sh DBRIG [SECONDS] [ROUNDS] [CLIENTS...]}
secs=${2:-10}
rounds=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
clients=("$@")
[ ${#clients[@]} -gt 0 ] || clients=(1 4 16)
records=${RECORDS:-20000}
goycsb=${GOYCSB:-/work/peers/go-ycsb/bin/go-ycsb}
[ -x "$goycsb" ] || goycsb=$(command -v go-ycsb || true)
[ -n "$goycsb" ] || { echo "go-ycsb not found (set GOYCSB)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

dprops=(-p hosts="$DBRIG_HOSTS" -p cassandra.keyspace=dbrig_vs -p table=dbrig_usertable -p recordcount="$records"
	-p cassandra.consistencylevel=QUORUM)
gprops=(-p cassandra.cluster="$DBRIG_HOSTS" -p cassandra.keyspace=dbrig_vs -p table=goycsb_usertable -p recordcount="$records"
	-p workload=core -p requestdistribution=zipfian -p readallfields=true -p writeallfields=false
	-p scanproportion=0 -p insertproportion=0)

read -r -a loaders <<<"${LOADERS:-${clients[*]}}"

cpu() { python3 -c 'import sys; u, s = map(float, open(sys.argv[1]).read().split()[-2:]); print(u + s)' "$tmp/cpu"; }

load_dbrig() { # loaders [-p prop=value…] → "records/s wall_s cpu_us_per_record"
	local s e c=$1
	shift
	s=$(date +%s.%N)
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" "$dbrig" load --driver cassandra -P workloada "${dprops[@]}" "$@" \
		--clients "$c" --recreate --quiet --json --store "$tmp/load-$RANDOM.db" 2>/dev/null >"$tmp/out"
	e=$(date +%s.%N)
	python3 - "$tmp/out" "$(cpu)" "$s" "$e" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))["load_phase"]
err = l.get("batch_errors", 0) or (l["wanted"] - l["records"])
print("%.0f%s %.1f %.1f" % (l["records_per_s"], "" if not err else "(%derr)" % err,
      float(sys.argv[4]) - float(sys.argv[3]), float(sys.argv[2]) * 1e6 / max(l["records"], 1)))
PY
}
load_goycsb() { # loaders → "records/s wall_s cpu_us_per_record"
	local s e
	s=$(date +%s.%N)
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" "$goycsb" load cassandra "${gprops[@]}" -p dropdata=true \
		-p threadcount="$1" -p operationcount="$records" -p insertcount="$records" >"$tmp/out" 2>&1 || true
	e=$(date +%s.%N)
	python3 - "$tmp/out" "$(cpu)" "$s" "$e" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.findall(r"TOTAL\s+- Takes\(s\): ([0-9.]+), Count: ([0-9]+), OPS: ([0-9.]+)", t)
e = re.findall(r"INSERT_ERROR\s+- Takes\(s\): [0-9.]+, Count: ([0-9]+)", t)
if not m:
    print("- - -"); sys.exit()
_, n, ops = m[-1]
err = int(e[-1]) if e else 0
print("%.0f%s %.1f %.1f" % (float(ops), "" if not err else "(%derr)" % err,
      float(sys.argv[4]) - float(sys.argv[3]), float(sys.argv[2]) * 1e6 / max(int(n), 1)))
PY
}

run_dbrig() { # workload clients → "ops/s cpu_us_per_op"
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" "$dbrig" run --driver cassandra -P "workload$1" "${dprops[@]}" \
		-p operationcount=0 --skip-load --clients "$2" --duration "${secs}s" \
		--store "$tmp/run-$RANDOM.db" --quiet --json 2>/dev/null >"$tmp/out"
	python3 - "$tmp/out" "$(cpu)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); o = d["ops"]["OVERALL"]
err = o.get("errors", 0)
print("%.0f %.1f%s" % (o["throughput"], float(sys.argv[2]) * 1e6 / max(o["count"], 1), "" if not err else "(%derr)" % err))
PY
}
run_goycsb() { # read-proportion clients → "ops/s cpu_us_per_op"; SIGTERM prints go-ycsb's final summary
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" timeout --foreground -s TERM "$secs" "$goycsb" run cassandra "${gprops[@]}" \
		-p threadcount="$2" -p readproportion="$1" -p updateproportion="$(python3 -c "print(round(1 - $1, 2))")" \
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
try: print("%.2f" % (float(sys.argv[1].split("(")[0]) / float(sys.argv[2])))
except (ValueError, ZeroDivisionError): print("-")' "$1" "$2"; }
readprop() { case $1 in a) echo 0.5 ;; c) echo 1 ;; esac; }

echo "load of $records records: round loaders dbrig_records/s go-ycsb_records/s dbrig/go-ycsb | wall s: dbrig go-ycsb | cpu µs/record: dbrig go-ycsb | dbrig, LOADERS in flight: records/s ratio"
# dbrig's first load creates the keyspace, which go-ycsb needs.
for r in $(seq "$rounds"); do
	for c in "${loaders[@]}"; do
		if [ $((r % 2)) = 1 ]; then
			read -r o _ _ < <(load_dbrig "$c" -p cassandra.loadinflight="$c")
			read -r d dw dc < <(load_dbrig "$c")
			read -r g gw gc < <(load_goycsb "$c")
		else
			read -r g gw gc < <(load_goycsb "$c")
			read -r o _ _ < <(load_dbrig "$c" -p cassandra.loadinflight="$c")
			read -r d dw dc < <(load_dbrig "$c")
		fi
		echo "$r load/$c $d $g $(ratio "$d" "$g") | $dw $gw | $dc $gc | $o $(ratio "$o" "$g")"
	done
done

echo "round workload/clients dbrig go-ycsb dbrig/go-ycsb | cpu µs/op: dbrig go-ycsb"
for r in $(seq "$rounds"); do
	for w in ${WORKLOADS-a c}; do
		for c in "${clients[@]}"; do
			read -r d dc < <(run_dbrig "$w" "$c")
			read -r g gc < <(run_goycsb "$(readprop "$w")" "$c")
			echo "$r $w/$c $d $g $(ratio "$d" "$g") | $dc $gc"
		done
	done
done
