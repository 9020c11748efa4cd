#!/usr/bin/env bash
# Builds an etcd server of another version from its Go module, for comparing
# two versions with one experiment file (examples/etcd-versions.yaml):
#   scripts/build-etcd.sh 3.6.16      # prints the binary's path
# The binary goes to $DBRIG_CACHE/etcd/VERSION/etcd (default
# ~/.cache/dbrig/etcd/3.6.16/etcd); a second call finds it there and builds
# nothing. Debian's etcd-server (3.4) stays the default of the etcd recipe.
#
# `go install go.etcd.io/etcd/server/v3@VERSION` cannot work (the module's
# go.mod has replace directives): build_go_main (lib.sh) builds it through
# a throwaway module.
source "$(dirname "$0")/lib.sh"

version=${1:-}
version=${version#v}
[[ $version =~ ^3\.[0-9]+\.[0-9]+$ ]] || die "usage: $0 VERSION (e.g. 3.6.16; go.etcd.io/etcd/server/v3 has 3.5 and later)"
out=$(dbrig_cache)/etcd/$version/etcd

is_version() { "$1" --version 2>/dev/null | grep -qx "etcd Version: $version"; }

build_go_main etcd "$version" go.etcd.io/etcd/server/v3 "$out" is_version
