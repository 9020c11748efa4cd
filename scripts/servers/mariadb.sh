#!/usr/bin/env bash
# MariaDB for tests: our own datadir under $DBRIG_SERVERS_DIR/mariadb, on
# 127.0.0.1:13306, socket in that dir, user dbrig/dbrig-secret, database dbrig.
#   mariadb.sh start|stop|env
# Durability is relaxed (innodb_flush_log_at_trx_commit=2, no binlog): this
# instance holds throwaway test data, and fsync per commit would make the
# driver tests measure the disk, not the driver.
source "$(dirname "$0")/lib.sh"

PORT=13306
DSN='dbrig:dbrig-secret@tcp(127.0.0.1:13306)/dbrig'
DIR=$(srv_dir mariadb)
DATA=$DIR/data
SOCK=$DIR/mysqld.sock
PIDFILE=$DIR/mariadbd.pid # written by start_bg: the PID we stop
LOG=$DIR/mariadbd.log

# root over our socket (unix_socket auth: we are root); never the system socket.
root_sql() { mariadb --no-defaults --protocol=socket -S "$SOCK" -uroot -N -B -e "$1"; }
user_ready() { mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"$PORT" -udbrig -pdbrig-secret -N -B -e 'SELECT 1' dbrig >/dev/null 2>&1; }

start() {
	if pid_alive "$PIDFILE" && user_ready; then
		log "mariadb already running (pid $(cat "$PIDFILE"))"
		return 0
	fi
	pid_alive "$PIDFILE" && die "mariadb pid $(cat "$PIDFILE") runs but does not answer; run '$0 stop' first (log: $LOG)"
	rm -f "$PIDFILE"
	(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && die "port $PORT is taken by another process"

	[ "$(id -u)" -eq 0 ] || die "run as root: mariadbd is started as root and drops to the mysql user"
	apt_install mariadb-server
	id mysql >/dev/null 2>&1 || die "user mysql missing after installing mariadb-server"
	chown mysql:mysql "$DIR"
	setpriv --reuid=mysql --regid=mysql --init-groups test -w "$DIR" ||
		die "user mysql cannot reach $DIR; set DBRIG_SERVERS_DIR to a directory all users can traverse (e.g. under /tmp)"
	if [ ! -d "$DATA/mysql" ]; then
		log "initializing $DATA"
		mariadb-install-db --no-defaults --datadir="$DATA" --user=mysql \
			--auth-root-authentication-method=socket --skip-test-db >>"$LOG" 2>&1 ||
			die "mariadb-install-db failed; see $LOG"
	fi

	log "starting mariadb on 127.0.0.1:$PORT"
	# mariadbd drops to --user=mysql itself (setuid, same PID), so $! is the server.
	start_bg "$PIDFILE" "$LOG" mariadbd --no-defaults --user=mysql \
		--datadir="$DATA" --socket="$SOCK" --pid-file="$DIR/mariadbd.server.pid" \
		--port="$PORT" --bind-address=127.0.0.1 --skip-name-resolve \
		--log-error="$LOG" --skip-log-bin --innodb-flush-log-at-trx-commit=2 \
		--innodb-buffer-pool-size=128M --max-connections=300

	local i
	for ((i = 0; i < 600; i++)); do
		pid_alive "$PIDFILE" || die "mariadbd exited during start; see $LOG"
		root_sql 'SELECT 1' >/dev/null 2>&1 && break
		sleep 0.1
	done
	[ "$i" -lt 600 ] || die "mariadb not ready after 60s; see $LOG"

	# Idempotent setup; host 127.0.0.1 because the server only listens there
	# and skip-name-resolve turns 'localhost' into socket-only.
	root_sql "CREATE DATABASE IF NOT EXISTS dbrig;
		CREATE USER IF NOT EXISTS 'dbrig'@'127.0.0.1' IDENTIFIED BY 'dbrig-secret';
		GRANT ALL PRIVILEGES ON dbrig.* TO 'dbrig'@'127.0.0.1';
		GRANT ALL PRIVILEGES ON \`dbrig\\_%\`.* TO 'dbrig'@'127.0.0.1';" ||
		die "creating user dbrig failed"
	user_ready || die "mariadb runs, but user dbrig cannot query over TCP; see $LOG"
	log "mariadb ready (pid $(cat "$PIDFILE"))"
}

stop() {
	# mariadbd shuts down cleanly on TERM; flushing InnoDB can take a while.
	stop_pid "$PIDFILE" 60
}

case "${1:-}" in
start) start ;;
stop) stop ;;
env) printf "export DBRIG_MYSQL_DSN='%s'\n" "$DSN" ;;
*) die "usage: $0 start|stop|env" ;;
esac
