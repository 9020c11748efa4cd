# shellcheck shell=bash
# Helpers shared by scripts/servers/*.sh. Each server script supports:
#   NAME.sh start   install if needed, start on 127.0.0.1, wait until ready (idempotent)
#   NAME.sh stop    stop every process it started, by PID
#   NAME.sh env     print "export DBRIG_...=..." lines that tests read (internal/testenv)
# State (data, logs, PID files) lives under $DBRIG_SERVERS_DIR (default /tmp/dbrig-servers).

set -euo pipefail

DBRIG_SERVERS_DIR=${DBRIG_SERVERS_DIR:-/tmp/dbrig-servers}
mkdir -p "$DBRIG_SERVERS_DIR"

log() { printf '[servers] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# srv_dir NAME: the state directory of one server.
srv_dir() { mkdir -p "$DBRIG_SERVERS_DIR/$1"; printf '%s\n' "$DBRIG_SERVERS_DIR/$1"; }

# apt_install PKG...: install missing Debian packages without starting their
# system services (we start our own instances on our own ports).
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

# wait_port PORT [SECONDS]: wait until 127.0.0.1:PORT accepts connections.
wait_port() {
	local port=$1 secs=${2:-60} i
	for ((i = 0; i < secs * 10; i++)); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# pid_alive PIDFILE: true when the PID in the file is a running process.
pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# start_bg PIDFILE LOGFILE CMD...: start CMD in its own session, record its PID.
start_bg() {
	local pidfile=$1 logfile=$2
	shift 2
	setsid "$@" >>"$logfile" 2>&1 </dev/null &
	echo $! >"$pidfile"
}

# stop_pid PIDFILE [SECONDS]: TERM the process, KILL it after SECONDS, remove the file.
stop_pid() {
	local pidfile=$1 secs=${2:-20} pid i
	[ -s "$pidfile" ] || { rm -f "$pidfile"; return 0; }
	pid=$(cat "$pidfile")
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < secs * 10; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && { log "pid $pid did not stop; killing"; kill -KILL "$pid" 2>/dev/null || true; }
	fi
	rm -f "$pidfile"
}
