#!/usr/bin/env bash
# dbrig against pgbench and go-ycsb on PostgreSQL, YCSB workload C (point
# reads of whole 1 KB records, zipfian keys), the SAME rows for all three:
# dbrig loads TABLE once, pgbench reads it through a custom script that names
# the keys as YCSB does ('user' || fnv1a64(keynum), pgbench's hash_fnv1a with
# seed 0 is YCSB's fnvhash64), go-ycsb's postgresql binding reads it by name.
# Closed model, rounds alternate the tools so machine noise hits all of them.
# WORKLOAD=workloada instead: half reads, half updates of one 100-byte field
# (pgbench: the read script and an UPDATE of field0 by the same keys, 1:1;
# go-ycsb and dbrig: readproportion 0.5, updateproportion 0.5).
#
#   scripts/pg-vs-peers.sh DBRIG [SECONDS] [ROUNDS] [CLIENTS…]
#     e.g. scripts/pg-vs-peers.sh ./dbrig 5 3 1 4 16
#
# Prints per round and client count: ops/s of each tool, the client's CPU per
# operation (user+system µs of the tool's process / operations; the server's
# CPU is not in it) and the ratios dbrig/pgbench and dbrig/go-ycsb.
#
# Environment: DBRIG_PG_URL (postgres://user:pw@host:port/db?sslmode=disable),
# DBRIG_OLD (a second dbrig binary to run beside, e.g. the previous build),
# GOYCSB (default /work/peers/go-ycsb/bin/go-ycsb, else go-ycsb on PATH),
# TABLE (default pgpeers_usertable), RECORDS (default 100000).
# go-ycsb builds from its source with only the bindings needed (its full
# dependency set is large): in a checkout of github.com/pingcap/go-ycsb keep
# the db/basic, db/pg, db/redis and db/mysql imports of cmd/go-ycsb/main.go,
# then `go mod tidy -e && go build -o bin/go-ycsb ./cmd/go-ycsb`.
# Keys: pgbench draws random_zipfian(0, N-1, 1.001) (PostgreSQL rejects YCSB's
# 0.99) and scrambles it with the same hash, as YCSB's scrambled zipfian does;
# the hot set differs in detail, the rows are the same table's.
set -euo pipefail
: "${DBRIG_PG_URL:?set DBRIG_PG_URL}"
dbrig=${1:?usage: pg-vs-peers.sh DBRIG [SECONDS] [ROUNDS] [CLIENTS…]}
secs=${2:-5}
rounds=${3:-3}
shift $(($# < 3 ? $# : 3))
clients=("$@")
[ ${#clients[@]} -gt 0 ] || clients=(1 4 16)
old=${DBRIG_OLD:-}
table=${TABLE:-pgpeers_usertable}
records=${RECORDS:-100000}
wl=${WORKLOAD:-workloadc}
case "$wl" in
workloadc) readp=1 updatep=0 ;;
workloada) readp=0.5 updatep=0.5 ;;
*) echo "pg-vs-peers.sh: WORKLOAD=$wl: expected workloadc or workloada" >&2; exit 2 ;;
esac
goycsb=${GOYCSB:-/work/peers/go-ycsb/bin/go-ycsb}
[ -x "$goycsb" ] || goycsb=$(command -v go-ycsb || true)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# go-ycsb takes host, port, user, password and database apart (never printed).
read -r pghost pgport pguser pgpass pgdb < <(python3 - "$DBRIG_PG_URL" <<'PY'
import sys, urllib.parse as u
p = u.urlparse(sys.argv[1])
print(p.hostname or "127.0.0.1", p.port or 5432, u.unquote(p.username or ""), u.unquote(p.password or "") or "-", p.path.lstrip("/") or "postgres")
PY
)

n=$(psql "$DBRIG_PG_URL" -tAc "SELECT count(*) FROM $table" 2>/dev/null || echo 0)
if [ "$n" != "$records" ]; then
	echo "loading $records records into $table" >&2
	"$dbrig" load --driver postgres -P workloadc -p pg.url="$DBRIG_PG_URL" -p table="$table" -p recordcount="$records" \
		--clients 4 --recreate --quiet --store "$tmp/load.db" >/dev/null
fi

# go-ycsb names its keys with another hash (FNV-1a of the big-endian number)
# than YCSB's fnvhash64, which dbrig follows: reading dbrig's table it would
# find no row at all. It reads a copy it loaded itself, table ${table}_goycsb.
gtable=${table}_goycsb
gprops=(-p table="$gtable" -p recordcount="$records" -p pg.host="$pghost" -p pg.port="$pgport" -p pg.user="$pguser"
	-p pg.password="$pgpass" -p pg.db="$pgdb" -p pg.sslmode=disable)
if [ -n "$goycsb" ]; then
	n=$(psql "$DBRIG_PG_URL" -tAc "SELECT count(*) FROM $gtable" 2>/dev/null || echo 0)
	if [ "$n" != "$records" ]; then
		echo "loading $records records into $gtable with go-ycsb" >&2
		"$goycsb" load postgresql "${gprops[@]}" -p dropdata=true -p threadcount=4 -p operationcount="$records" >/dev/null 2>&1
	fi
fi

# fetched TABLE: rows PostgreSQL has fetched from TABLE by index so far. A
# tool whose reads find fewer rows than it counted operations (an empty,
# cheaper read) is flagged below.
fetched() { psql "$DBRIG_PG_URL" -tAc "SELECT coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables WHERE relname = '$1'"; }

cat >"$tmp/read.sql" <<EOF
\set z random_zipfian(0, $((records - 1)), 1.001)
\set id abs(hash_fnv1a(:z, 0)) % $records
\set h abs(hash_fnv1a(:id, 0))
SELECT * FROM $table WHERE ycsb_key = 'user' || :h;
EOF
pgscripts=(-f "$tmp/read.sql")
if [ "$wl" = workloada ]; then
	sed '$d' "$tmp/read.sql" >"$tmp/update.sql"
	echo "UPDATE $table SET field0 = convert_to(repeat('u', 100), 'SQL_ASCII') WHERE ycsb_key = 'user' || :h;" >>"$tmp/update.sql"
	pgscripts=(-f "$tmp/read.sql@1" -f "$tmp/update.sql@1")
fi

cpu() { python3 -c 'import sys; u, s = map(float, open(sys.argv[1]).read().split()[-2:]); print(u + s)' "$tmp/cpu"; }

# Each prints "ops/s cpu_us_per_op".
run_dbrig() { # binary clients
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" "$1" run --driver postgres -P "$wl" -p pg.url="$DBRIG_PG_URL" -p table="$table" \
		-p recordcount="$records" -p operationcount=0 --skip-load --clients "$2" --duration "${secs}s" \
		--store "$tmp/$(basename "$1")-$RANDOM.db" --quiet --json 2>/dev/null >"$tmp/out"
	python3 - "$tmp/out" "$(cpu)" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["ops"]["OVERALL"]
print("%.0f %.1f %d" % (o["throughput"], float(sys.argv[2]) * 1e6 / max(o["count"], 1), o["count"]))
PY
}
run_pgbench() { # clients
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" pgbench -n -M prepared "${pgscripts[@]}" -c "$1" -j "$(($1 < 2 ? 1 : 2))" -T "$secs" \
		"$DBRIG_PG_URL" >"$tmp/out" 2>&1
	python3 - "$tmp/out" "$(cpu)" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
tps = float(re.search(r"tps = ([0-9.]+)", t).group(1))
n = int(re.search(r"actually processed: ([0-9]+)", t).group(1))
print("%.0f %.1f %d" % (tps, float(sys.argv[2]) * 1e6 / max(n, 1), n))
PY
}
run_goycsb() { # clients; go-ycsb has no time limit of its own: SIGTERM prints its final summary
	if [ -z "$goycsb" ]; then
		echo "- - 0"
		return
	fi
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" timeout --foreground -s TERM "$secs" "$goycsb" run postgresql -p workload=core \
		-p readallfields=true -p readproportion="$readp" -p updateproportion="$updatep" -p scanproportion=0 -p insertproportion=0 \
		-p requestdistribution=zipfian -p operationcount=1000000000 -p threadcount="$1" "${gprops[@]}" >"$tmp/out" 2>&1 || true
	python3 - "$tmp/out" "$(cpu)" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.findall(r"TOTAL\s+- Takes\(s\): ([0-9.]+), Count: ([0-9]+), OPS: ([0-9.]+)", t)
if not m:
    print("- - 0"); sys.exit()
_, n, ops = m[-1]
print("%.0f %.1f %s" % (float(ops), float(sys.argv[2]) * 1e6 / max(int(n), 1), n))
PY
}
# checked TABLE RUN… runs one tool and prints its "ops/s cpu" after checking
# that its reads found a row each (pg_stat counters are flushed when the
# tool's backends exit, hence the short wait).
checked() {
	local t=$1 before after ops cpu n
	shift
	before=$(fetched "$t")
	read -r ops cpu n < <("$@")
	sleep 0.5
	after=$(fetched "$t")
	python3 -c 'import sys
n, d = int(sys.argv[1]), int(sys.argv[2]) - int(sys.argv[3])
if n and d < 0.99 * n: print("warning: %s: %d operations fetched %d rows" % (sys.argv[4], n, d), file=sys.stderr)' "$n" "$after" "$before" "$2" >&2
	echo "$ops $cpu"
}
ratio() { python3 -c 'import sys
try: print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))
except (ValueError, ZeroDivisionError): print("-")' "$1" "$2"; }

hdr="%-5s %-7s %10s %10s %10s"
[ -n "$old" ] && hdr+=" %10s"
printf "$hdr %8s %8s" round clients dbrig pgbench go-ycsb ${old:+dbrig_old} "d/pgb" "d/ycsb"
[ -n "$old" ] && printf ' %8s' "d/old"
printf '   cpu µs/op: %s\n' "dbrig pgbench go-ycsb${old:+ old}"
for r in $(seq "$rounds"); do
	for c in "${clients[@]}"; do
		read -r d dc < <(checked "$table" run_dbrig "$dbrig" "$c")
		read -r p pc < <(checked "$table" run_pgbench "$c")
		read -r g gc < <(checked "$gtable" run_goycsb "$c")
		o=- oc=-
		[ -n "$old" ] && read -r o oc < <(checked "$table" run_dbrig "$old" "$c")
		printf '%-5s %-7s %10s %10s %10s' "$r" "$c" "$d" "$p" "$g"
		[ -n "$old" ] && printf ' %10s' "$o"
		printf ' %8s %8s' "$(ratio "$d" "$p")" "$(ratio "$d" "$g")"
		[ -n "$old" ] && printf ' %8s' "$(ratio "$d" "$o")"
		printf '   %s %s %s%s\n' "$dc" "$pc" "$gc" "${old:+ $oc}"
	done
done
