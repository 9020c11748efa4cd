#!/usr/bin/env bash
# Issue 10's done-when, rerunnable: two ratings back to back per reset
# strategy on one store, and whether their answers agree within the stated
# precision (|a − b| ≤ precision × the smaller answer).
#   scripts/rate-pairs.sh DBRIG SYSTEM [STRATEGY…]
#     SYSTEM: pebble (a data dir under a temporary directory) or postgres
#     (DBRIG_PG_URL, table ratepairs_usertable); STRATEGY: reload snapshot
#     repair keep (default: all four).
# Environment (defaults): RECORDS (100000), SLA ('p95<10ms'), DURATION (2s,
# each search experiment), SLA_DURATION (4s, the final run), START (500 ops/s;
# START= empty: no --rate, the rating probes the capacity first),
# PRECISION (10%), EXTRA (more `dbrig rate` flags, e.g. "--settle=false"),
# STORE (the results store; default: one in the temporary directory).
# The second rating of a pair reuses the data set when the first left it as
# loaded (snapshot, repair: --skip-load), else loads again (--recreate).
# Prints per strategy: both answers, their difference, agree yes/no, both
# intervals (low…high, ∞: no upper bound, *: wider than the precision) and
# whether they overlap, whether each final run confirmed it, experiments, Λ (total seconds) and the mean
# reset time ν, and whether each rating called itself stable (its spread,
# where runs contradicted each other, within the precision); then per rating
# the machine's load (others' share before the experiments), the reference
# burst before and after, and the store's condition (after the load, and its
# largest drift), and the final runs' pass point. The full JSON of every
# rating stays in $OUT (default: a temporary directory that is removed) for
# a closer look.
set -euo pipefail
dbrig=${1:?usage: rate-pairs.sh DBRIG pebble|postgres [STRATEGY…]}
system=${2:?usage: rate-pairs.sh DBRIG pebble|postgres [STRATEGY…]}
shift 2
strategies=("$@")
[ ${#strategies[@]} -gt 0 ] || strategies=(reload snapshot repair keep)
records=${RECORDS:-100000}
precision=${PRECISION:-10%}
tmp=$(mktemp -d)
out=${OUT:-$tmp}
mkdir -p "$out"
trap 'rm -rf "$tmp"' EXIT

props=(-p recordcount="$records" -p dataintegrity=true)
case "$system" in
pebble) props+=(-p pebble.dir="$tmp/pebble") ;;
postgres)
	: "${DBRIG_PG_URL:?set DBRIG_PG_URL}"
	props+=(-p pg.url="$DBRIG_PG_URL" -p table=ratepairs_usertable)
	;;
*) echo "rate-pairs.sh: system $system: expected pebble or postgres" >&2; exit 2 ;;
esac

start=(--rate "${START-500}")
[ -n "${START-500}" ] || start=()
rate() { # strategy n data-flag → JSON in $out/STRATEGY-N.json
	# shellcheck disable=SC2086 # EXTRA is a list of flags
	"$dbrig" rate --driver "$system" "${props[@]}" --sla "${SLA:-p95<10ms}" --sla-duration "${SLA_DURATION:-4s}" \
		--duration "${DURATION:-2s}" "${start[@]}" --precision "$precision" --reset "$1" "$3" \
		--store "${STORE:-$tmp/store.db}" --quiet --json ${EXTRA:-} >"$out/$1-$2.json" 2>"$out/$1-$2.err" || true
}

printf '%-9s %10s %10s %7s %6s %21s %21s %7s %9s %9s %11s %15s %13s\n' strategy rating_1 rating_2 diff agree interval_1 interval_2 overlap confirmed stable experiments "Λ s (1 / 2)" "ν s (1 / 2)"
for s in "${strategies[@]}"; do
	rate "$s" 1 --recreate
	next=--recreate
	if python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1])).get("left") else 1)' "$out/$s-1.json" 2>/dev/null; then
		next=--skip-load
	fi
	rate "$s" 2 "$next"
	python3 - "$out/$s-1.json" "$out/$s-2.json" "$s" "${precision%\%}" <<'PY'
import json, sys
def load(p):
    try:
        return json.load(open(p))
    except (OSError, ValueError):
        return {}
a, b, s, prec = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3], float(sys.argv[4]) / 100
x, y = (r.get("throughput") or r.get("clients") for r in (a, b))  # by rate, or --by clients in EXTRA
def nu(r):
    t = r.get("time", {})
    return t["resets_s"] / t["reset_count"] if t.get("reset_count") else 0.0
if x and y:
    diff = abs(x - y) / min(x, y)
    agree = "yes" if diff <= prec + 1e-9 else "no"
    d = "%.1f%%" % (diff * 100)
else:
    agree, d = "-", "-"
conf = "/".join("yes" if r.get("confirmed") else "no" for r in (a, b))
exps = "%s / %s" % (a.get("time", {}).get("experiments", "-"), b.get("time", {}).get("experiments", "-"))
stable = "/".join("yes" if r.get("stable") else "no" for r in (a, b))
lam = "%.1f / %.1f" % (a.get("time", {}).get("total_s", 0), b.get("time", {}).get("total_s", 0))
def iv(r):  # (low, high, text); high inf: no upper bound (machine too busy)
    i = r.get("interval")
    if not i:
        return None, None, "-"
    hi = float("inf") if i.get("unbounded") else i["high"]
    return i["low"], hi, "%.0f…%s%s" % (i["low"], "∞" if i.get("unbounded") else "%.0f" % i["high"], "*" if i.get("wider") else "")
(la, ha, ta), (lb, hb, tb) = iv(a), iv(b)
overlap = "-" if la is None or lb is None else ("yes" if la <= hb and lb <= ha else "no")
print("%-9s %10s %10s %7s %6s %21s %21s %7s %9s %9s %11s %15s %13s" % (s, x or "-", y or "-", d, agree, ta, tb, overlap, conf, stable, exps, lam, "%.2f / %.2f" % (nu(a), nu(b))))
def fig(f):
    if f["unit"] == "bytes":
        return "%s %.1f MB" % (f["name"], f["value"] / 1e6)
    if f["unit"] == "share":
        return "%s %.1f%%" % (f["name"], f["value"] * 100)
    return "%s %.0f" % (f["name"], f["value"])
for n, r in (("1", a), ("2", b)):  # what each rating measured of the machine and the store
    parts = []
    l = r.get("machine_load")
    if l:
        parts.append("others %.0f%%/%.0f%% of %d cores (mean/max)%s" % (l["others_mean"] * 100, l["others_max"] * 100, l["cores"], ", too busy" if l.get("busy") else ""))
    if (r.get("interval") or {}).get("machine_factor"):
        parts.append("failure raised ×%.2f" % r["interval"]["machine_factor"])
    ref = r.get("reference")
    if ref:
        parts.append("reference %.0f → %.0f ops/s (%+.0f%%)" % (ref["before"], ref.get("after", 0), ref.get("moved", 0) * 100))
        if ref.get("previous_rating"):
            parts.append("%+.0f%% since rating %d's %.0f" % (ref.get("since_previous", 0) * 100, ref["previous_rating"], ref["previous"]))
    f = r.get("final")
    if f:
        parts.append("final runs %d (%d passed), pass point %.0f, band %.0f…%.0f (%.0f%%), scale %.1f%%" % (
            f["runs"], f["passes"], f["mid"], f["low"], f["high"], f["relative"] * 100, f["scale"] * 100))
    c = r.get("condition")
    if c:
        parts.append("condition " + ", ".join(fig(f) for f in c.get("reference", [])))
        m = c.get("max_drift")
        if m:
            ch = "%+.1f points" % (m["change"] * 100) if m["unit"] == "share" else "%+.0f%%" % (m["change"] * 100)
            parts.append("max drift %s %s, %d steps drifted" % (m["figure"], ch, c.get("drifted_steps", 0)))
    if parts:
        print("  %s %s: %s" % (s, n, "; ".join(parts)))
PY
	for n in 1 2; do # a rating that failed says why
		[ -s "$out/$s-$n.json" ] || { echo "  rating $n of $s failed:" >&2; tail -3 "$out/$s-$n.err" >&2; }
	done
done
[ "$system" = postgres ] && psql "$DBRIG_PG_URL" -qc "DROP TABLE IF EXISTS ratepairs_usertable" >/dev/null 2>&1 || true
