#!/usr/bin/env bash
# Two or more dbrig builds (or settings) side by side on PostgreSQL, rounds
# alternating so machine noise hits all of them: ops/s and client CPU per
# operation (user+system µs of the dbrig process / operations), and each
# variant's ratio to the first. A variant is a command, e.g. a binary or
# "env GOMAXPROCS=1 ./dbrig"; the table must be loaded (scripts/pg-vs-peers.sh
# loads it).
#
#   scripts/pg-ab.sh SECONDS ROUNDS CLIENTS WORKLOAD VARIANT…
#     e.g. scripts/pg-ab.sh 5 5 16 workloadc /tmp/dbrig-old ./dbrig "env GOMAXPROCS=1 ./dbrig"
#
# Environment: DBRIG_PG_URL, TABLE (default pgpeers_usertable), RECORDS
# (default 100000).
set -euo pipefail
: "${DBRIG_PG_URL:?set DBRIG_PG_URL}"
[ $# -ge 5 ] || { echo "usage: pg-ab.sh SECONDS ROUNDS CLIENTS WORKLOAD VARIANT…" >&2; exit 2; }
secs=$1 rounds=$2 clients=$3 wl=$4
shift 4
table=${TABLE:-pgpeers_usertable}
records=${RECORDS:-100000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() { # variant → "ops/s cpu_us_per_op"
	# shellcheck disable=SC2086 # a variant is a command line
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" $1 run --driver postgres -P "$wl" -p pg.url="$DBRIG_PG_URL" -p table="$table" \
		-p recordcount="$records" -p operationcount=0 --skip-load --clients "$clients" --duration "${secs}s" \
		--store "$tmp/s-$RANDOM.db" --quiet --json 2>/dev/null >"$tmp/out"
	python3 - "$tmp/out" "$tmp/cpu" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["ops"]["OVERALL"]
u, s = map(float, open(sys.argv[2]).read().split()[-2:])
print("%.0f %.1f" % (o["throughput"], (u + s) * 1e6 / max(o["count"], 1)))
PY
}
printf '%-5s' round
for i in $(seq $#); do printf ' %10s %8s %6s' "v$i-ops/s" "cpu-µs" "ratio"; done
echo
for r in $(seq "$rounds"); do
	printf '%-5s' "$r"
	first=
	for v in "$@"; do
		read -r ops c < <(one "$v")
		: "${first:=$ops}"
		printf ' %10s %8s %6s' "$ops" "$c" "$(python3 -c "print('%.2f' % ($ops / $first))")"
	done
	echo
done
i=1
for v in "$@"; do echo "v$i = $v"; i=$((i + 1)); done
