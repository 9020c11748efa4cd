#!/usr/bin/env bash
# dbrig against go-ycsb's own mongodb binding on the same MongoDB-protocol
# server (here FerretDB on PostgreSQL, the mongodb test server), YCSB
# workloads A and C, at each client count, back to back:
#   DBRIG_MONGODB_URL=mongodb://127.0.0.1:17017/ycsb?w=1 \
#     scripts/mongodb-vs-goycsb.sh DBRIG GOYCSB [SECONDS] [ROUNDS] ["CLIENTS…"]
#     e.g. scripts/mongodb-vs-goycsb.sh ./dbrig /tmp/goycsb/go-ycsb 10 2 "1 4 16"
# First the bulk load: per round and loader count (LOADERS, default the
# CLIENTS), each tool loads LOADRECORDS records (default 5000) into a fresh
# collection, the one starting alternating between rounds, and the line
# shows each tool's records/s as it reports it (its load phase, without
# connecting), the ratio, and each process's wall time. dbrig loads
# batches of 100 records per loader with one InsertMany each (unordered,
# as YCSB's binding with mongodb.batchsize > 1); go-ycsb one insertOne per
# record; so the line also shows dbrig with mongodb.batchsize=1 (one insert
# per record, as go-ycsb) and its ratio. The load collections are dropped
# at the end (go-ycsb cannot drop one: dbrig's load --recreate of no
# records does).
# Then each tool loads RECORDS records (default 1000) into a new collection
# of its own (mvg_dbrig_PID, mvg_goycsb_PID: the same size and both fresh,
# so the same work for a server whose reads scan the collection; dropped at
# the end). Then per
# round, workload and client count, dbrig and go-ycsb run SECONDS each, the
# one starting alternating between rounds, and the line shows both ops/s and
# the ratio dbrig/go-ycsb. Both use zipfian requests, 10 fields of 100
# bytes, reads of all fields, updates of one; go-ycsb's database is always
# ycsb, so DBRIG_MONGODB_URL's path must be /ycsb.
# WORKLOADS: the workloads run after the load (default "a c"; "" for the
# load alone).
set -euo pipefail
dbrig=${1:?usage: mongodb-vs-goycsb.sh DBRIG GOYCSB [SECONDS] [ROUNDS] [\"CLIENTS…\"]}
goycsb=${2:?usage: mongodb-vs-goycsb.sh DBRIG GOYCSB [SECONDS] [ROUNDS] [\"CLIENTS…\"]}
secs=${3:-10}
rounds=${4:-2}
read -r -a clients <<<"${5:-1 4 16}"
records=${RECORDS:-1000}
loadrecords=${LOADRECORDS:-5000}
read -r -a loaders <<<"${LOADERS:-${clients[*]}}"
url=${DBRIG_MONGODB_URL:?DBRIG_MONGODB_URL: the server (eval "\$(scripts/test-servers up mongodb)")}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

common=(-p recordcount="$records" -p requestdistribution=zipfian -p readallfields=true -p writeallfields=false)
dprops=(-p mongodb.url="$url" -p table=mvg_dbrig_$$ "${common[@]}")
gprops=(-p mongodb.url="$url" -p table=mvg_goycsb_$$ "${common[@]}" -p workload=core
	-p scanproportion=0 -p insertproportion=0)

ratio() { python3 -c 'import sys
try: print("%.2f" % (float(sys.argv[1].split("(")[0]) / float(sys.argv[2])))
except (ValueError, ZeroDivisionError): print("-")' "$1" "$2"; }

load_dbrig() { # table loaders [-p prop=value…] → "records/s wall_s"
	local s e t=$1 c=$2
	shift 2
	s=$(date +%s.%N)
	"$dbrig" load --driver mongodb -P workloada -p mongodb.url="$url" -p table="$t" -p recordcount="$loadrecords" "$@" \
		--clients "$c" --recreate --quiet --json --store "$tmp/load-$RANDOM.db" 2>/dev/null >"$tmp/out"
	e=$(date +%s.%N)
	python3 - "$tmp/out" "$s" "$e" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))["load_phase"]
err = l.get("batch_errors", 0) or (l["wanted"] - l["records"])
print("%.0f%s %.2f" % (l["records_per_s"], "" if not err else "(%derr)" % err, float(sys.argv[3]) - float(sys.argv[2])))
PY
}
load_goycsb() { # table loaders → "records/s wall_s"
	local s e
	s=$(date +%s.%N)
	"$goycsb" load mongodb -p mongodb.url="$url" -p table="$1" -p recordcount="$loadrecords" -p workload=core \
		-p threadcount="$2" -p operationcount="$loadrecords" >"$tmp/out" 2>&1 || true
	e=$(date +%s.%N)
	python3 - "$tmp/out" "$s" "$e" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.findall(r"TOTAL\s+- Takes\(s\): ([0-9.]+), Count: ([0-9]+), OPS: ([0-9.]+)", t)
e = re.findall(r"INSERT_ERROR\s+- Takes\(s\): [0-9.]+, Count: ([0-9]+)", t)
err = int(e[-1]) if e else 0
print("%.0f%s %.2f" % (float(m[-1][2]), "" if not err else "(%derr)" % err, float(sys.argv[3]) - float(sys.argv[2])) if m else "- -")
PY
}
drop() { # collection: a load of no records with --recreate drops it
	"$dbrig" load --driver mongodb -P workloada -p mongodb.url="$url" -p table="$1" -p recordcount=0 \
		-p readproportion=0 -p updateproportion=0 -p insertproportion=1 --recreate --quiet --store "$tmp/drop.db" >/dev/null 2>&1 ||
		echo "could not drop collection $1" >&2
}

echo "load of $loadrecords records: round loaders dbrig_records/s go-ycsb_records/s dbrig/go-ycsb | wall s: dbrig go-ycsb | dbrig batchsize=1: records/s ratio"
dropped=(mvg_dbrig_load_$$ mvg_dbrig1_load_$$)
for r in $(seq "$rounds"); do
	for c in "${loaders[@]}"; do
		gt=mvg_goycsb_load_$$_${r}_$c
		dropped+=("$gt")
		if [ $((r % 2)) = 1 ]; then
			read -r o _ < <(load_dbrig "mvg_dbrig1_load_$$" "$c" -p mongodb.batchsize=1)
			read -r d dw < <(load_dbrig "mvg_dbrig_load_$$" "$c")
			read -r g gw < <(load_goycsb "$gt" "$c")
		else
			read -r g gw < <(load_goycsb "$gt" "$c")
			read -r o _ < <(load_dbrig "mvg_dbrig1_load_$$" "$c" -p mongodb.batchsize=1)
			read -r d dw < <(load_dbrig "mvg_dbrig_load_$$" "$c")
		fi
		echo "$r load/$c $d $g $(ratio "$d" "$g") | $dw $gw | $o $(ratio "$o" "$g")"
	done
done
for t in "${dropped[@]}"; do drop "$t"; done

workloads=${WORKLOADS-a c}
[ -n "$workloads" ] || exit 0
echo "loading $records records for each tool's runs" >&2
"$dbrig" load --driver mongodb -P workloada "${dprops[@]}" --clients 4 --recreate --quiet --store "$tmp/load.db" >/dev/null
"$goycsb" load mongodb "${gprops[@]}" -p threadcount=4 -p operationcount="$records" >"$tmp/gload" 2>&1 ||
	{ cat "$tmp/gload" >&2; exit 1; }

run_dbrig() { # workload clients → ops/s
	"$dbrig" run --driver mongodb -P "workload$1" "${dprops[@]}" -p operationcount=0 --skip-load \
		--clients "$2" --duration "${secs}s" --store "$tmp/run-$RANDOM.db" --quiet --json 2>/dev/null >"$tmp/out"
	python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); o = d["ops"]["OVERALL"]
err = o.get("errors", 0)
print("%.1f%s" % (o["throughput"], "" if not err else "(%derr)" % err))
PY
}
run_goycsb() { # workload clients → ops/s; SIGTERM prints go-ycsb's final summary
	local rp=1
	[ "$1" = a ] && rp=0.5
	timeout --foreground -s TERM "$secs" "$goycsb" run mongodb "${gprops[@]}" -p threadcount="$2" \
		-p readproportion="$rp" -p updateproportion="$(python3 -c "print(round(1 - $rp, 2))")" \
		-p operationcount=1000000000 >"$tmp/out" 2>&1 || true
	python3 - "$tmp/out" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.findall(r"TOTAL\s+- Takes\(s\): ([0-9.]+), Count: ([0-9]+), OPS: ([0-9.]+)", t)
print("%.1f" % float(m[-1][2]) if m else "-")
PY
}
echo "round workload clients dbrig_ops/s goycsb_ops/s dbrig/goycsb"
for r in $(seq "$rounds"); do
	for w in $workloads; do
		for c in "${clients[@]}"; do
			if [ $((r % 2)) = 1 ]; then
				o=$(run_dbrig "$w" "$c")
				g=$(run_goycsb "$w" "$c")
			else
				g=$(run_goycsb "$w" "$c")
				o=$(run_dbrig "$w" "$c")
			fi
			echo "$r $w $c $o $g $(ratio "$o" "$g")"
		done
	done
done
drop "mvg_dbrig_$$"
drop "mvg_goycsb_$$"
