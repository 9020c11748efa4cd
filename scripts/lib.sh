# shellcheck shell=bash
# Helpers of the shell scripts in scripts/: only what Go cannot do (apt).
# The test servers themselves are dbrig's own local clusters (dbrig cluster
# up, see scripts/test); apt-get's "updated" stamp lives under
# $DBRIG_SERVERS_DIR (default /tmp/dbrig-servers).

set -euo pipefail

DBRIG_SERVERS_DIR=${DBRIG_SERVERS_DIR:-/tmp/dbrig-servers}
mkdir -p "$DBRIG_SERVERS_DIR"

log() { printf '[scripts] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# apt_install PKG...: install missing Debian packages without starting their
# system services (dbrig starts its own instances on its own ports).
apt_install() {
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	# policy-rc.d 101 = "do not start services from maintainer scripts".
	local had_policy=1
	[ -e /usr/sbin/policy-rc.d ] || { had_policy=0; printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null; $sudo chmod +x /usr/sbin/policy-rc.d; }
	local stamp="$DBRIG_SERVERS_DIR/.apt-updated"
	if [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mmin +720 2>/dev/null)" ]; then
		$sudo apt-get update -qq && touch "$stamp"
	fi
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	[ "$had_policy" -eq 1 ] || $sudo rm -f /usr/sbin/policy-rc.d
}

# dbrig_cache is where the build scripts keep what they build.
dbrig_cache() { printf '%s\n' "${DBRIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dbrig}"; }

# build_go_main NAME VERSION PKG OUT CHECK [GO BUILD FLAG]...: prints OUT,
# the binary of the Go main package PKG at module version vVERSION, built
# unless OUT is there already and passes CHECK (a command given a binary's
# path, silent, that succeeds when it is NAME VERSION). A throwaway module
# requires PKG's module at VERSION and builds PKG: the Go module proxy
# serves it like any dependency, checked against the checksum database
# (`go install PKG@VERSION` fails for a module whose go.mod has replace
# directives).
build_go_main() {
	local name=$1 version=$2 pkg=$3 out=$4 check=$5
	shift 5
	if [ -x "$out" ] && "$check" "$out"; then
		log "$name $version: already built"
		printf '%s\n' "$out"
		return 0
	fi
	command -v go >/dev/null || die "go is not installed (https://go.dev/doc/install, or apt-get install golang)"
	local work
	work=$(mktemp -d)
	# shellcheck disable=SC2064 # $work is expanded now, on purpose
	trap "rm -rf '$work'" EXIT
	printf 'module dbrig.local/build-%s\n\ngo 1.24\n' "$name" >"$work/go.mod"
	printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$pkg" >"$work/tools.go"
	log "$name $version: fetching $pkg@v$version"
	(cd "$work" && go get "$pkg@v$version") >&2 || die "the Go module proxy has no $pkg@v$version"
	log "$name $version: building (a few minutes)"
	mkdir -p "$(dirname "$out")"
	(cd "$work" && go build -trimpath "$@" -o "$out.tmp" "$pkg") >&2 || die "building $name $version failed"
	"$check" "$out.tmp" || die "the built binary ($("$out.tmp" --version 2>&1 | head -n1)) is not $name $version"
	mv "$out.tmp" "$out"
	log "$name $version: $out"
	printf '%s\n' "$out"
}
