#!/usr/bin/env bash
# Headless Chromium for the web dashboard's browser tests (web/*_test.go).
# Installs Debian's chromium package if it is missing (idempotent), then prints
# the line the tests read through internal/testenv:
#   eval "$(scripts/chromium.sh)"        # install if needed, then export
#   scripts/chromium.sh env              # only print the export line
# Nothing is started here: each test starts its own Chromium and stops it.
source "$(dirname "$0")/lib.sh"

BIN=/usr/bin/chromium

case "${1:-install}" in
install)
	apt_install chromium
	[ -x "$BIN" ] || die "chromium installed but $BIN is missing"
	log "chromium: $("$BIN" --version 2>/dev/null || echo unknown version)"
	;;
env) ;;
*) die "usage: $0 [install|env]" ;;
esac
printf "export DBRIG_CHROMIUM='%s'\n" "$BIN"
