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
# build_go_main (lib.sh) builds its app/victoria-metrics main package
# through a throwaway module.
source "$(dirname "$0")/lib.sh"

version=${1:-1.151.0}
version=${version#v}
[[ $version =~ ^1\.[0-9]+\.[0-9]+$ ]] || die "usage: $0 [VERSION] (e.g. 1.151.0)"
out=$(dbrig_cache)/victoriametrics/$version/victoria-metrics
mod=github.com/VictoriaMetrics/VictoriaMetrics

runs() { "$1" -version >/dev/null 2>&1; }

build_go_main victoria-metrics "$version" "$mod/app/victoria-metrics" "$out" runs \
	-ldflags "-X $mod/lib/buildinfo.Version=victoria-metrics-v$version"
