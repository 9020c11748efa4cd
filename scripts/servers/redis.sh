#!/usr/bin/env bash
# Redis for tests: our own redis-server under $DBRIG_SERVERS_DIR/redis on
# 127.0.0.1:16379, no persistence (save "", appendonly no): the data is
# throwaway, and a restart of the server starts empty. It requires a password
# of awkward characters (space, both quotes, '@', ':'), so every test that
# talks to it passes redis.password and shows that it is never leaked; env
# exports it as DBRIG_REDIS_PASSWORD.
#   redis.sh start|stop|env
source "$(dirname "$0")/lib.sh"

PORT=16379
DIR=$(srv_dir redis)
CONF=$DIR/redis.conf
PIDFILE=$DIR/redis.pid # written by start_bg: the redis-server's PID
LOG=$DIR/redis.log
PASSWORD=$'Rd5 "Xq7vLm2" p@ss:w0rd\'s'

# REDISCLI_AUTH: the password stays off redis-cli's command line.
ready() { [ "$(REDISCLI_AUTH=$PASSWORD redis-cli --no-auth-warning -h 127.0.0.1 -p "$PORT" ping 2>/dev/null)" = PONG ]; }

start() {
	if pid_alive "$PIDFILE" && ready; then
		log "redis already running (pid $(cat "$PIDFILE"))"
		return 0
	fi
	pid_alive "$PIDFILE" && die "redis pid $(cat "$PIDFILE") runs but does not answer; run '$0 stop' first (log: $LOG)"
	rm -f "$PIDFILE"
	(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && die "port $PORT is taken by another process"

	apt_install redis-server redis-tools
	# daemonize no: start_bg keeps the server's own PID. No pidfile of its
	# own, no unix socket, logs to stdout (our log file). The password in
	# double quotes, its backslashes and double quotes escaped for redis.conf.
	local pw=${PASSWORD//\\/\\\\}
	pw=${pw//\"/\\\"}
	install -m 600 /dev/null "$CONF" # only its owner reads the password
	cat >"$CONF" <<EOF
bind 127.0.0.1
port $PORT
protected-mode yes
daemonize no
dir $DIR
save ""
appendonly no
logfile ""
databases 16
maxclients 1000
requirepass "$pw"
EOF
	log "starting redis on 127.0.0.1:$PORT"
	start_bg "$PIDFILE" "$LOG" redis-server "$CONF"

	local i
	for ((i = 0; i < 300; i++)); do
		pid_alive "$PIDFILE" || die "redis exited during start; see $LOG"
		ready && break
		sleep 0.1
	done
	[ "$i" -lt 300 ] || die "redis not ready after 30s; see $LOG"
	log "redis ready (pid $(cat "$PIDFILE"))"
}

case "${1:-}" in
start) start ;;
stop) stop_pid "$PIDFILE" 10 ;;
env)
	printf "export DBRIG_REDIS_ADDR='127.0.0.1:%s'\n" "$PORT"
	printf 'export DBRIG_REDIS_PASSWORD=%q\n' "$PASSWORD"
	;;
*) die "usage: $0 start|stop|env" ;;
esac
