#!/usr/bin/env bash
# Builds FerretDB 1.x from its Go module: the MongoDB wire protocol on
# PostgreSQL, which the ferretdb cluster recipe (driver/mongodb) runs since
# a MongoDB server cannot be installed here.
#   scripts/build-ferretdb.sh [1.24.2]   # prints the binary's path
# The binary goes to $DBRIG_CACHE/ferretdb/VERSION/ferretdb (default
# ~/.cache/dbrig/ferretdb/1.24.2/ferretdb), where the recipe looks for it
# when no ferretdb is on $PATH; a second call finds it there and builds
# nothing. FerretDB is Apache-2.0; 1.24 is the last line with the plain
# PostgreSQL backend (2.x needs PostgreSQL's DocumentDB extension).
#
# The Go module proxy serves github.com/FerretDB/FerretDB@VERSION (checked
# against the checksum database); `go install` of it cannot work, as its
# binary refuses to start without build/version/version.txt, a file its
# release process generates and the module leaves out. So the module is
# copied, that file written ("vVERSION"), and cmd/ferretdb built there with
# the module's own go.mod and go.sum.
source "$(dirname "$0")/lib.sh"

version=${1:-1.24.2}
version=${version#v}
[[ $version =~ ^1\.[0-9]+\.[0-9]+$ ]] || die "usage: $0 [VERSION] (e.g. 1.24.2; the recipe drives FerretDB 1.x)"
cache=${DBRIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dbrig}
out=$cache/ferretdb/$version/ferretdb

built() { "$1" --version 2>/dev/null | grep -qx "version: v$version"; }

if [ -x "$out" ] && built "$out"; then
	log "ferretdb $version: already built"
	printf '%s\n' "$out"
	exit 0
fi
command -v go >/dev/null || die "go is not installed (https://go.dev/doc/install, or apt-get install golang)"

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
log "ferretdb $version: fetching github.com/FerretDB/FerretDB@v$version"
src=$(cd "$work" && go mod download -json "github.com/FerretDB/FerretDB@v$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$src" ] && [ -d "$src" ] || die "the Go module proxy has no github.com/FerretDB/FerretDB@v$version"
cp -r "$src" "$work/src"
chmod -R u+w "$work/src"
printf 'v%s\n' "$version" >"$work/src/build/version/version.txt"
printf 'dbrig-build\n' >"$work/src/build/version/package.txt"
log "ferretdb $version: building (several minutes on two cores)"
mkdir -p "$(dirname "$out")"
(cd "$work/src" && GOTOOLCHAIN=local go build -trimpath -o "$out.tmp" ./cmd/ferretdb) >&2 || die "building ferretdb $version failed"
built "$out.tmp" || die "the built binary says \"$("$out.tmp" --version 2>&1 | head -n1)\", not version: v$version"
mv "$out.tmp" "$out"
log "ferretdb $version: $out"
printf '%s\n' "$out"
