#!/usr/bin/env bash
# Hazelcast for tests: a 3-member open-source cluster (m1..m3) on 127.0.0.1,
# ports 15701/15702/15703, cluster name "dbrig", TCP-IP join, the jar from
# Maven Central, Java 17.
#   hazelcast.sh start|stop|env
# State (jar, per-member YAML config, logs, PID files) lives under
# $DBRIG_SERVERS_DIR/hazelcast. start starts every member that is not running
# (so it also brings back members a fault test stopped) and waits until every
# running member's latest view of the cluster has 3 members.
# DBRIG_HAZELCAST_HEAP sets -Xmx of each member (default 256m: 2-core machine;
# raise it for large bulk loads, each record is held twice: owner + backup).
source "$(dirname "$0")/lib.sh"

VERSION=5.5.0
PORTS=(15701 15702 15703)
ADDRS=127.0.0.1:15701,127.0.0.1:15702,127.0.0.1:15703
HEAP=${DBRIG_HAZELCAST_HEAP:-256m}
DIR=$(srv_dir hazelcast)
JAR=$DIR/lib/hazelcast-$VERSION.jar

fetch_jar() {
	[ -s "$JAR" ] && return 0
	apt_install openjdk-17-jre-headless maven
	log "fetching com.hazelcast:hazelcast:$VERSION from Maven Central"
	mvn -q -B dependency:copy -Dartifact="com.hazelcast:hazelcast:$VERSION" \
		-DoutputDirectory="$DIR/lib" >"$DIR/mvn.log" 2>&1 || die "maven could not fetch the jar; see $DIR/mvn.log"
	[ -s "$JAR" ] || die "maven did not write $JAR; see $DIR/mvn.log"
}

# write_config N PORT: member N's YAML. Each member has its own fixed port (no
# auto-increment) so that addresses are stable; bind.any=false plus the
# interface list keeps every socket on 127.0.0.1.
write_config() {
	local m=$1 port=$2
	cat >"$DIR/$m/hazelcast.yaml" <<EOF
hazelcast:
  cluster-name: dbrig
  properties:
    hazelcast.phone.home.enabled: false
    hazelcast.socket.bind.any: false
    hazelcast.logging.type: jdk
    # Failure detection within a few seconds: members are on one host.
    hazelcast.heartbeat.interval.seconds: 1
    hazelcast.max.no.heartbeat.seconds: 10
    # Members start together on one host: a short join window suffices.
    hazelcast.wait.seconds.before.join: 1
    hazelcast.max.wait.seconds.before.join: 5
  network:
    port:
      port: $port
      auto-increment: false
    interfaces:
      enabled: true
      interfaces:
        - 127.0.0.1
    join:
      auto-detection:
        enabled: false
      multicast:
        enabled: false
      tcp-ip:
        enabled: true
        member-list:
          - 127.0.0.1:15701
          - 127.0.0.1:15702
          - 127.0.0.1:15703
  jet:
    enabled: false
EOF
}

# view_size N: the member count of the latest cluster view in member N's log
# of its current run (the log is truncated when the member starts).
view_size() {
	grep -o 'Members {size:[0-9]*' "$DIR/$1/hazelcast.log" 2>/dev/null | tail -n1 | sed 's/.*size://'
}

start_member() {
	local i=$1 m=m$(($1 + 1)) port=${PORTS[$1]}
	mkdir -p "$DIR/$m"
	pid_alive "$DIR/$m/pid" && return 0
	rm -f "$DIR/$m/pid"
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && die "port $port is taken by another process (hazelcast $m is not running)"
	write_config "$m" "$port"
	: >"$DIR/$m/hazelcast.log"
	log "starting hazelcast $m on 127.0.0.1:$port"
	# The --add-* flags are what Hazelcast asks for to use its fast paths.
	start_bg "$DIR/$m/pid" "$DIR/$m/hazelcast.log" java \
		-Xms64m -Xmx"$HEAP" -XX:+UseSerialGC -Xss512k \
		-Djava.net.preferIPv4Stack=true \
		--add-modules java.se --add-exports java.base/jdk.internal.ref=ALL-UNNAMED \
		--add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
		--add-opens java.management/sun.management=ALL-UNNAMED \
		--add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED \
		-Dhazelcast.config="$DIR/$m/hazelcast.yaml" \
		-Dhazelcast.phone.home.enabled=false \
		-cp "$JAR" com.hazelcast.core.server.HazelcastMemberStarter
}

ready() {
	local m
	for m in m1 m2 m3; do
		grep -q 'is STARTED' "$DIR/$m/hazelcast.log" 2>/dev/null || return 1
		[ "$(view_size "$m")" = 3 ] || return 1
	done
}

start() {
	fetch_jar
	local i m
	for i in 0 1 2; do
		start_member "$i"
	done
	for ((i = 0; i < 1200; i++)); do
		ready && break
		for m in m1 m2 m3; do
			pid_alive "$DIR/$m/pid" || die "hazelcast $m exited during start; see $DIR/$m/hazelcast.log"
		done
		sleep 0.1
	done
	[ "$i" -lt 1200 ] || die "hazelcast cluster not formed (3 members) after 120s; see $DIR/m*/hazelcast.log"
	log "hazelcast ready: 3 members (pids $(cat "$DIR"/m1/pid) $(cat "$DIR"/m2/pid) $(cat "$DIR"/m3/pid)), addresses $ADDRS"
}

stop() {
	local m
	for m in m1 m2 m3; do
		stop_pid "$DIR/$m/pid" 30
	done
}

case "${1:-}" in
start) start ;;
stop) stop ;;
env) printf "export DBRIG_HAZELCAST_ADDRS='%s'\n" "$ADDRS" ;;
*) die "usage: $0 start|stop|env" ;;
esac
