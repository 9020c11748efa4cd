#!/usr/bin/env bash
# PostgreSQL for tests: our own cluster under $DBRIG_SERVERS_DIR/postgres, on
# 127.0.0.1:15432, socket in that dir, role dbrig/dbrig-secret, databases dbrig
# and dbrig_results (results-store tests).
#   postgres.sh start|stop|env
# fsync/synchronous_commit/full_page_writes are off: the cluster holds
# throwaway test data, and a crash of it only costs a re-run of the tests.
source "$(dirname "$0")/lib.sh"

PORT=15432
URL='postgres://dbrig:dbrig-secret@127.0.0.1:15432/dbrig?sslmode=disable'
DIR=$(srv_dir postgres)
DATA=$DIR/data
PIDFILE=$DIR/postmaster.pid # written by start_bg: the postmaster's PID
LOG=$DIR/postgres.log

pg_bin() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
	[ -n "$d" ] || die "no PostgreSQL binaries under /usr/lib/postgresql"
	printf '%s\n' "$d"
}

# as_postgres CMD...: run as the postgres OS user. setpriv execs (no watching
# parent as with su/runuser), so a backgrounded one keeps the server's PID.
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups --reset-env -- "$@"; }

# Superuser over our own socket (trust for local connections; the socket is
# 0700, so only postgres and root can use it).
super_sql() { psql -X -q -h "$DIR" -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -Atc "$1"; }
user_ready() { psql -X -q "$URL" -Atc 'SELECT 1' >/dev/null 2>&1; }

start() {
	if pid_alive "$PIDFILE" && user_ready; then
		log "postgres already running (pid $(cat "$PIDFILE"))"
		return 0
	fi
	pid_alive "$PIDFILE" && die "postgres pid $(cat "$PIDFILE") runs but does not answer; run '$0 stop' first (log: $LOG)"
	rm -f "$PIDFILE"
	(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && die "port $PORT is taken by another process"

	[ "$(id -u)" -eq 0 ] || die "run as root: the server runs as the postgres user, which needs root to switch to"
	apt_install postgresql
	local bin
	bin=$(pg_bin)
	chown postgres:postgres "$DIR"
	chmod 0700 "$DIR"
	as_postgres test -w "$DIR" || die "user postgres cannot reach $DIR; set DBRIG_SERVERS_DIR to a directory all users can traverse (e.g. under /tmp)"
	if [ ! -s "$DATA/PG_VERSION" ]; then
		log "initdb $DATA"
		rm -rf "$DATA"
		as_postgres "$bin/initdb" -D "$DATA" -U postgres -E UTF8 --locale=C \
			--auth-local=trust --auth-host=scram-sha-256 >>"$LOG" 2>&1 ||
			die "initdb failed; see $LOG"
	fi

	log "starting postgres on 127.0.0.1:$PORT"
	: >>"$LOG"
	chown postgres "$LOG"
	start_bg "$PIDFILE" "$LOG" setpriv --reuid=postgres --regid=postgres --init-groups --reset-env -- \
		"$bin/postgres" -D "$DATA" -p "$PORT" \
		-c listen_addresses=127.0.0.1 -c unix_socket_directories="$DIR" \
		-c unix_socket_permissions=0700 -c max_connections=200 \
		-c fsync=off -c synchronous_commit=off -c full_page_writes=off

	local i
	for ((i = 0; i < 600; i++)); do
		pid_alive "$PIDFILE" || die "postgres exited during start; see $LOG"
		super_sql 'SELECT 1' >/dev/null 2>&1 && break
		sleep 0.1
	done
	[ "$i" -lt 600 ] || die "postgres not ready after 60s; see $LOG"

	# Idempotent setup (CREATE DATABASE cannot run in a DO block: \gexec).
	super_sql "DO \$\$BEGIN
			IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'dbrig') THEN CREATE ROLE dbrig; END IF;
		END\$\$;
		ALTER ROLE dbrig WITH LOGIN PASSWORD 'dbrig-secret';" || die "creating role dbrig failed"
	local db
	for db in dbrig dbrig_results; do
		if [ -z "$(super_sql "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
			super_sql "CREATE DATABASE $db OWNER dbrig" || die "creating database $db failed"
		fi
	done
	user_ready || die "postgres runs, but role dbrig cannot query over TCP; see $LOG"
	log "postgres ready (pid $(cat "$PIDFILE"))"
}

stop() {
	# SIGINT is PostgreSQL's "fast" shutdown; TERM ("smart") would wait for
	# every client to disconnect. stop_pid then TERMs/KILLs if still needed.
	if pid_alive "$PIDFILE"; then
		local pid i
		pid=$(cat "$PIDFILE")
		kill -INT "$pid" 2>/dev/null || true
		for ((i = 0; i < 300; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	stop_pid "$PIDFILE" 10
}

case "${1:-}" in
start) start ;;
stop) stop ;;
env) printf "export DBRIG_PG_URL='%s'\n" "$URL" ;;
*) die "usage: $0 start|stop|env" ;;
esac
