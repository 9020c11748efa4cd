#!/bin/bash
# dbrig's TPC-C against go-tpc (github.com/pingcap/go-tpc v1.0.9) on the same
# PostgreSQL, same warehouses and terminals, in alternating runs; prints each
# pair's tpmC and their ratio, and the load rate of both loaders.
#
#   scripts/tpcc-vs-gotpc.sh load W T           # (re)load schemas gotpc_wW and dbrig_tpcc_wW, W warehouses, T loaders
#   scripts/tpcc-vs-gotpc.sh run W T DUR ROUNDS # alternating runs of DUR (e.g. 30s), T terminals
#
# Environment: DBRIG_PG_URL (postgres://user:pw@host:port/db?sslmode=disable;
# eval "$(scripts/test-servers up postgres)" starts one), DBRIG (default: dbrig),
# GOTPC (default: go-tpc). go-tpc builds outside dbrig's module:
#   mkdir -p /tmp/gotpc && cd /tmp/gotpc && go mod init gotpc &&
#   GONOSUMDB=github.com/pingcap/go-tpc GOFLAGS=-mod=mod go get github.com/pingcap/go-tpc@v1.0.9 &&
#   GOFLAGS=-mod=mod go build -o go-tpc github.com/pingcap/go-tpc/cmd/go-tpc
# Both use schemas of their own in DBRIG_PG_URL's database (search_path).
set -euo pipefail
: "${DBRIG_PG_URL:?set DBRIG_PG_URL}"
DBRIG=${DBRIG:-dbrig}
GOTPC=${GOTPC:-go-tpc}
STORE=${STORE:-/tmp/tpcc-vs-gotpc.db}
mode=${1:?load or run}
W=${2:?warehouses}
T=${3:?threads}

# go-tpc takes host, port, user, password and database apart.
rest=${DBRIG_PG_URL#postgres://}
userpw=${rest%%@*}
hostport=${rest#*@}
hostport=${hostport%%/*}
db=${rest#*@*/}
db=${db%%\?*}
gotpc() {
	"$GOTPC" tpcc --driver postgres -H "${hostport%%:*}" -P "${hostport##*:}" -U "${userpw%%:*}" -p "${userpw#*:}" -D "$db" \
		--conn-params "sslmode=disable&search_path=gotpc_w$W" --warehouses "$W" -T "$T" "$@"
}
url() { echo "${DBRIG_PG_URL}$([[ $DBRIG_PG_URL == *\?* ]] && echo '&' || echo '?')search_path=dbrig_tpcc_w$W"; }
count() {
	psql "$DBRIG_PG_URL" -tAc "SELECT $(for t in item warehouse district stock customer history orders order_line new_order; do printf '(SELECT count(*) FROM %s.%s)+' "$1" "$t"; done)0"
}

case $mode in
load)
	psql "$DBRIG_PG_URL" -qc "DROP SCHEMA IF EXISTS gotpc_w$W CASCADE; CREATE SCHEMA gotpc_w$W; DROP SCHEMA IF EXISTS dbrig_tpcc_w$W CASCADE; CREATE SCHEMA dbrig_tpcc_w$W"
	s=$(date +%s.%N)
	gotpc prepare --no-check >/dev/null
	e=$(date +%s.%N)
	rows=$(count "gotpc_w$W")
	echo "go-tpc prepare --no-check: $rows rows in $(echo "$e - $s" | bc) s = $(echo "$rows / ($e - $s)" | bc) rows/s"
	"$DBRIG" load -P tpcc --driver postgres -p pg.url="$(url)" -p tpcc.warehouses="$W" --clients "$T" --quiet --store "$STORE" 2>&1 |
		grep 'records inserted' | sed 's/^/dbrig load: /'
	;;
run)
	DUR=${4:?duration, e.g. 30s}
	ROUNDS=${5:?rounds}
	for r in $(seq 1 "$ROUNDS"); do
		g=$(gotpc --time "$DUR" run 2>&1 | grep -o 'tpmC: [0-9.]*' | tail -1 | cut -d' ' -f2)
		d=$("$DBRIG" run -P tpcc --driver postgres -p pg.url="$(url)" -p tpcc.warehouses="$W" -p tpcc.reuse=true \
			--clients "$T" --duration "$DUR" --quiet --json --store "$STORE" 2>/dev/null | grep '"tpmc"' | grep -o '[0-9.]*')
		echo "round $r W=$W T=$T go-tpc tpmC=$g dbrig tpmC=$d ratio=$(echo "scale=3; $d / $g" | bc)"
	done
	;;
*)
	echo "usage: $0 load W T | run W T DUR ROUNDS" >&2
	exit 2
	;;
esac
