#!/usr/bin/env bash
# The rating-time figures of issue 10 ("Speed") on one server: `dbrig rate
# --json` once per reset strategy (reload, snapshot, repair, keep) and once
# more with snapshot and --no-early-stop, on the same data set, then one
# table: the answer, the experiments, the time split Λ = ζ + ω·ν + η·δ + Δ
# (all measured by dbrig), the speed-up against reload (ratio of measured Λ)
# and the experiments' total time with and without early stopping.
#
#   scripts/rate-figures.sh DRIVER RECORDS [DBRIG]
#     e.g. scripts/rate-figures.sh postgres 1000000 ./dbrig
#          scripts/rate-figures.sh redis 1000000 ./dbrig
#
# DRIVER is postgres (DBRIG_PG_URL) or redis (DBRIG_REDIS_ADDR,
# DBRIG_REDIS_PASSWORD). The data lives in its own table / key prefix
# (TABLE, default ratefig) and is dropped at the end, snapshots included.
# Environment: SLA (default p99<20ms), START (first rate; default none: the
# rating probes the capacity first and starts at half of it; START=500 with
# EXTRA=--probe=false is the search before the probe),
# MAX (highest rate tried, default 20000), PRECISION (default 10%),
# SLA_DURATION (Δ, default 10s), STEP (δ, default 3s), CLIENTS (default 16),
# WORKLOAD (default workloada), STRATEGIES (default "reload snapshot repair keep"),
# OUT (directory kept with every rating's JSON; default a temporary one),
# EXTRA (more flags of dbrig rate, e.g. "--votes 1 --min-tail 0" for a
# quick, less careful rating).
# Values are 1 KB (10 fields × 100 bytes) with dataintegrity=true (repair
# regenerates the loaded records).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: rate-figures.sh DRIVER RECORDS [DBRIG]" >&2; exit 2; }
drv=$1 records=$2 dbrig=${3:-./dbrig}
table=${TABLE:-ratefig}
sla=${SLA:-p99<20ms}
case "$records" in '' | *[!0-9]*) echo "rate-figures.sh: RECORDS=$records: expected a whole number" >&2; exit 2 ;; esac
[[ $table =~ ^[a-z][a-z0-9_]*$ ]] || { echo "rate-figures.sh: TABLE=$table: expected lower-case letters, digits and _" >&2; exit 2; }

case "$drv" in
postgres)
	: "${DBRIG_PG_URL:?set DBRIG_PG_URL}"
	conn=(-p pg.url="$DBRIG_PG_URL")
	cleanup_data() {
		# The table and every snapshot copy of it (their names hold the table's).
		psql "$DBRIG_PG_URL" -qAt -c "SELECT format('DROP TABLE IF EXISTS %I;', tablename) FROM pg_tables
			WHERE schemaname = current_schema() AND (tablename = '$table' OR tablename LIKE '%\_$table' OR tablename LIKE '$table\_%')" |
			psql "$DBRIG_PG_URL" -q >/dev/null
	}
	;;
redis)
	: "${DBRIG_REDIS_ADDR:?set DBRIG_REDIS_ADDR}"
	conn=(-p redis.addr="$DBRIG_REDIS_ADDR" -p redis.password="${DBRIG_REDIS_PASSWORD:-}")
	cleanup_data() {
		local host=${DBRIG_REDIS_ADDR%:*} port=${DBRIG_REDIS_ADDR##*:} pat auth=()
		# An empty REDISCLI_AUTH still sends AUTH, which a server without a password refuses.
		[ -z "${DBRIG_REDIS_PASSWORD:-}" ] || auth=(REDISCLI_AUTH="$DBRIG_REDIS_PASSWORD")
		for pat in "$table:*" "$table#*" "dbrig-snapshot:*:$table:*"; do
			env "${auth[@]}" redis-cli -h "$host" -p "$port" --scan --pattern "$pat" |
				xargs -r -n 1000 env "${auth[@]}" redis-cli -h "$host" -p "$port" unlink >/dev/null
		done
	}
	;;
*) echo "rate-figures.sh: DRIVER=$drv: expected postgres or redis" >&2; exit 2 ;;
esac

out=${OUT:-}
trap 'exit 130' INT TERM HUP PIPE # the EXIT trap below then drops the data
if [ -z "$out" ]; then
	out=$(mktemp -d)
	trap 'cleanup_data; rm -rf "$out"' EXIT
else
	mkdir -p "$out"
	trap 'cleanup_data' EXIT
fi

rate() { # NAME STRATEGY [FLAGS…]: one rating, its JSON in $out/NAME.json
	local name=$1 strategy=$2
	shift 2
	echo "$(date -u +%T) $drv $name: rating (reset $strategy, load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
	"$dbrig" rate --driver "$drv" "${conn[@]}" -P "${WORKLOAD:-workloada}" -p table="$table" \
		-p recordcount="$records" -p dataintegrity=true --recreate \
		--sla "$sla" ${START:+--rate "$START"} --max "${MAX:-20000}" --precision "${PRECISION:-10%}" \
		--sla-duration "${SLA_DURATION:-10s}" --duration "${STEP:-3s}" --clients "${CLIENTS:-16}" \
		--reset "$strategy" --store "$out/store.db" --quiet --json ${EXTRA:-} "$@" >"$out/$name.json" 2>"$out/$name.log" ||
		{ echo "$drv $name failed:" >&2; tail -5 "$out/$name.log" >&2; }
}

cleanup_data
for s in ${STRATEGIES:-reload snapshot repair keep}; do
	rate "$s" "$s"
done
rate snapshot-no-early snapshot --no-early-stop

echo "$drv, $records records, SLA $sla, load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" ${STRATEGIES:-reload snapshot repair keep} <<'PY'
import json, os, sys
out, names = sys.argv[1], sys.argv[2:] + ["snapshot-no-early"]
rows = {}
for n in names:
    try:
        rows[n] = json.load(open(os.path.join(out, n + ".json")))
    except (OSError, ValueError):
        rows[n] = None
base = rows.get("reload")
base_total = base and base["time"]["total_s"]
hdr = ["strategy", "answer", "exps", "ζ s", "ν s", "ω", "η·δ s", "Δ s", "Λ s", "vs reload", "saved by early stop s"]
print("| " + " | ".join(hdr) + " |")
print("|" + "---|" * len(hdr))
for n in names:
    r = rows[n]
    if r is None:
        print(f"| {n} | failed (see its log) |" + " |" * (len(hdr) - 2))
        continue
    t = r["time"]
    ans = r.get("throughput") or r.get("clients") or 0  # 0: no answer
    nu = t["resets_s"] / t["reset_count"] if t.get("reset_count") else 0
    speed = f"{base_total / t['total_s']:.1f}×" if base_total and t["total_s"] else "–"
    print(f"| {n} | {ans:.0f} | {t['experiments']} | {t['first_load_s']:.1f} | {nu:.2f} | {t['reset_count']} | "
          f"{t['experiments_s']:.1f} | {t['final_s']:.1f} | {t['total_s']:.1f} | {speed} | {t.get('early_saved_s', 0):.1f} |")
if base and base["time"].get("reset_ceiling"):
    t = base["time"]
    print(f"resets were {t['resets_s'] / t['total_s'] * 100:.0f} % of the reload rating's Λ: no strategy can make it more than "
          f"{t['reset_ceiling']:.1f}× faster with the same experiments (Λ / (Λ − ω·ν))")
a, b = rows.get("snapshot"), rows.get("snapshot-no-early")
if a and b:
    print(f"experiments with early stop (snapshot): {a['time']['experiments']} in {a['time']['experiments_s']:.1f} s; "
          f"without: {b['time']['experiments']} in {b['time']['experiments_s']:.1f} s")
PY
