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
