#!/usr/bin/env bash
# Compares the harness ceiling (null driver, workload A, closed model) of two
# dbrig binaries side by side, alternating runs so machine noise hits both:
#   scripts/ceiling.sh OLD_DBRIG NEW_DBRIG [SECONDS] [ROUNDS]
# Prints ops/s per binary and client count, and the ratio new/old.
set -euo pipefail
old=$1 new=$2 secs=${3:-5} rounds=${4:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ops() { # binary clients → ops/s of the measure phase (a store per binary: schemas differ)
	"$1" run --driver null -P workloada -p recordcount=1000 -p operationcount=0 --clients "$2" --duration "${secs}s" \
		--store "$tmp/$(basename "$1").db" --quiet --json 2>/dev/null |
		python3 -c 'import json,sys; print(round(json.load(sys.stdin)["ops"]["OVERALL"]["throughput"]))'
}
printf '%-8s %-6s %12s %12s %8s\n' round clients old_ops/s new_ops/s new/old
for r in $(seq "$rounds"); do
	for c in 1 4 16; do
		a=$(ops "$old" "$c")
		b=$(ops "$new" "$c")
		printf '%-8s %-6s %12s %12s %8.2f\n' "$r" "$c" "$a" "$b" "$(python3 -c "print($b/$a)")"
	done
done
