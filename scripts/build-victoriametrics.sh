#!/usr/bin/env bash
# Builds VictoriaMetrics single-node (victoria-metrics) from its Go module,
# for the victoriametrics recipe (Debian has no package of it):
#   scripts/build-victoriametrics.sh            # the pinned version, prints the binary's path
#   scripts/build-victoriametrics.sh 1.151.0    # another one
# The binary goes to $DBRIG_CACHE/victoriametrics/VERSION/victoria-metrics
# (default ~/.cache/dbrig/...); a second call finds it there and builds
# nothing. The recipe looks for it there, then for victoria-metrics on $PATH.
#
# v1.151.0 is pinned: the newest release that `go get` and `go mod tidy`
# accept with this machine's Go (1.26); later ones need a newer Go.
# A throwaway module requires the VictoriaMetrics module at VERSION and
# builds its app/victoria-metrics main package: the Go module proxy serves
# it like any dependency, checked against the checksum database.
source "$(dirname "$0")/lib.sh"

version=${1:-1.151.0}
version=${version#v}
[[ $version =~ ^1\.[0-9]+\.[0-9]+$ ]] || die "usage: $0 [VERSION] (e.g. 1.151.0)"
cache=${DBRIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dbrig}
out=$cache/victoriametrics/$version/victoria-metrics

if [ -x "$out" ]; then
	log "victoria-metrics $version: already built"
	printf '%s\n' "$out"
	exit 0
fi
command -v go >/dev/null || die "go is not installed (https://go.dev/doc/install, or apt-get install golang)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat >go.mod <<MOD
module dbrig.local/build-victoriametrics

go 1.24
MOD
cat >tools.go <<'SRC'
//go:build tools

package tools

import _ "github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics"
SRC
mod=github.com/VictoriaMetrics/VictoriaMetrics
log "victoria-metrics $version: fetching $mod@v$version"
go get "$mod/app/victoria-metrics@v$version" >&2 || die "the Go module proxy has no $mod@v$version"
log "victoria-metrics $version: building (a few minutes)"
mkdir -p "$(dirname "$out")"
go build -trimpath -ldflags "-X $mod/lib/buildinfo.Version=victoria-metrics-v$version" \
	-o "$out.tmp" "$mod/app/victoria-metrics" >&2 || die "building victoria-metrics $version failed"
"$out.tmp" -version >/dev/null || die "the built binary does not run"
mv "$out.tmp" "$out"
log "victoria-metrics $version: $out"
printf '%s\n' "$out"
