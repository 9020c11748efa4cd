#!/usr/bin/env bash
# Builds an etcd server of another version from its Go module, for comparing
# two versions with one experiment file (examples/etcd-versions.yaml):
#   scripts/build-etcd.sh 3.6.16      # prints the binary's path
# The binary goes to $DBRIG_CACHE/etcd/VERSION/etcd (default
# ~/.cache/dbrig/etcd/3.6.16/etcd); a second call finds it there and builds
# nothing. Debian's etcd-server (3.4) stays the default of the etcd recipe.
#
# `go install go.etcd.io/etcd/server/v3@VERSION` cannot work (the module's
# go.mod has replace directives), so a throwaway module requires the server
# module at VERSION and builds its main package: the Go module proxy serves
# it like any dependency, checked against the checksum database.
source "$(dirname "$0")/lib.sh"

version=${1:-}
version=${version#v}
[[ $version =~ ^3\.[0-9]+\.[0-9]+$ ]] || die "usage: $0 VERSION (e.g. 3.6.16; go.etcd.io/etcd/server/v3 has 3.5 and later)"
cache=${DBRIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dbrig}
out=$cache/etcd/$version/etcd

if [ -x "$out" ] && "$out" --version 2>/dev/null | grep -qx "etcd Version: $version"; then
	log "etcd $version: already built"
	printf '%s\n' "$out"
	exit 0
fi
command -v go >/dev/null || die "go is not installed (https://go.dev/doc/install, or apt-get install golang)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat >go.mod <<MOD
module dbrig.local/build-etcd

go 1.24
MOD
cat >tools.go <<'SRC'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
SRC
log "etcd $version: fetching go.etcd.io/etcd/server/v3@v$version"
go get "go.etcd.io/etcd/server/v3@v$version" >&2 || die "the Go module proxy has no go.etcd.io/etcd/server/v3@v$version"
log "etcd $version: building (a few minutes)"
mkdir -p "$(dirname "$out")"
go build -trimpath -o "$out.tmp" go.etcd.io/etcd/server/v3 >&2 || die "building etcd $version failed"
got=$("$out.tmp" --version | head -n1)
[ "$got" = "etcd Version: $version" ] || die "the built binary says \"$got\", not etcd $version"
mv "$out.tmp" "$out"
log "etcd $version: $out"
printf '%s\n' "$out"
