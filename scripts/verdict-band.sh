#!/usr/bin/env bash
# Is this host steady enough for a PostgreSQL rating? A rating's answer is
# decided by its final runs (the SLA's full duration at one target); this
# runs exactly such runs, in rounds, at a few rates, and prints each run's
# p95. Where one rate passes in one round and fails in the next, or a lower
# rate fails where a higher one passed, the verdict is a coin toss over that
# band, and two ratings can differ by as much (docs/measurements/postgres-rating.md).
#   scripts/verdict-band.sh DBRIG RATE…        e.g. 7500 8500 9500
# Environment (defaults): DBRIG_PG_URL (required), RECORDS (100000), ROUNDS
# (4), DURATION (30s), CLIENTS (32), EXTRA (more `dbrig run` flags, e.g.
# "--cpus 0"). The table (verdictband_usertable) is loaded once and rewritten
# (VACUUM FULL, CHECKPOINT, as a rating's settle step does) before each run,
# so every run starts on the same table; psql does that.
set -euo pipefail
dbrig=${1:?usage: verdict-band.sh DBRIG RATE…}
shift
[ $# -gt 0 ] || { echo "verdict-band.sh: give the rates to try, e.g. 7500 8500 9500" >&2; exit 2; }
: "${DBRIG_PG_URL:?set DBRIG_PG_URL (eval \"\$(dbrig cluster env --state …)\")}"
command -v psql >/dev/null || { echo "verdict-band.sh: needs psql (scripts/install-deps postgres)" >&2; exit 2; }
table=verdictband_usertable
dir=$(mktemp -d)
store=$dir/store.db
trap 'rm -rf "$dir"' EXIT
props=(-p pg.url="$DBRIG_PG_URL" -p table="$table" -p recordcount="${RECORDS:-100000}" -p pg.autovacuum=off)

# shellcheck disable=SC2086 # EXTRA is a list of flags
"$dbrig" run --driver postgres "${props[@]}" --recreate -p operationcount=0 --duration 1s --store "$store" --quiet ${EXTRA:-} >/dev/null
printf '%-6s' round
for r in "$@"; do printf '%14s' "$r ops/s"; done
echo
for round in $(seq 1 "${ROUNDS:-4}"); do
	printf '%-6s' "$round"
	for r in "$@"; do
		psql -q "$DBRIG_PG_URL" -c "VACUUM (FULL, ANALYZE) $table" -c CHECKPOINT >/dev/null
		# shellcheck disable=SC2086
		if ! "$dbrig" run --driver postgres "${props[@]}" --skip-load -p operationcount=0 --rate "$r" \
			--clients "${CLIENTS:-32}" --warmup 2s --duration "${DURATION:-30s}" --store "$store" --quiet --json ${EXTRA:-} \
			>"$dir/run.json" 2>"$dir/run.log"; then
			cat "$dir/run.log" >&2
			exit 1
		fi
		p95=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["ops"]["OVERALL"]["p95_us"])' "$dir/run.json")
		printf '%14s' "$(awk -v us="$p95" 'BEGIN { printf (us >= 1000 ? "%.3g ms" : "%d µs"), (us >= 1000 ? us / 1000 : us) }')"
	done
	echo
done
