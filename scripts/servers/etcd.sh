#!/usr/bin/env bash
# etcd for tests: a 3-member cluster (m1..m3) on 127.0.0.1, Debian's etcd-server.
#   clients 12379/22379/32379, peers 12380/22380/32380,
#   data, logs and PID files under $DBRIG_SERVERS_DIR/etcd/mN.
#   etcd.sh start|stop|env
# start starts every member that is not running (so it also brings back a
# member a fault test stopped) and waits until all three are healthy and a
# leader is elected. Debian's 3.4 server speaks the same v3 gRPC API as the
# v3.6 Go client that driver/etcd uses.
source "$(dirname "$0")/lib.sh"

DIR=$(srv_dir etcd)
MEMBERS=(m1 m2 m3)
CLIENT_PORTS=(12379 22379 32379)
PEER_PORTS=(12380 22380 32380)
ENDPOINTS=127.0.0.1:12379,127.0.0.1:22379,127.0.0.1:32379
CLUSTER=m1=http://127.0.0.1:12380,m2=http://127.0.0.1:22380,m3=http://127.0.0.1:32380

ctl() { ETCDCTL_API=3 etcdctl --endpoints="$ENDPOINTS" --dial-timeout=2s --command-timeout=3s "$@"; }

# ready: every member answers a quorum read (endpoint health does one) and
# the members agree that there is a leader.
ready() {
	ctl endpoint health >/dev/null 2>&1 || return 1
	local status
	status=$(ctl endpoint status -w json 2>/dev/null) || return 1
	# Each member reports "leader":ID; 0 means no leader.
	! grep -q '"leader":0[,}]' <<<"$status" && grep -q '"leader":[1-9]' <<<"$status"
}

start_member() {
	local i=$1 name=${MEMBERS[$1]} m="$DIR/${MEMBERS[$1]}"
	local cport=${CLIENT_PORTS[$i]} pport=${PEER_PORTS[$i]}
	mkdir -p "$m"
	if pid_alive "$m/pid"; then
		return 0
	fi
	rm -f "$m/pid"
	local p
	for p in "$cport" "$pport"; do
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && die "port $p is taken by another process (etcd member $name is not running)"
	done
	log "starting etcd $name on 127.0.0.1:$cport (peer $pport)"
	# --initial-cluster* only matter on the first start; later starts reuse
	# the member's data dir. Auto-compaction keeps the revision history of
	# benchmark updates from filling the backend quota.
	start_bg "$m/pid" "$m/etcd.log" etcd \
		--name "$name" --data-dir "$m/data" \
		--listen-client-urls "http://127.0.0.1:$cport" --advertise-client-urls "http://127.0.0.1:$cport" \
		--listen-peer-urls "http://127.0.0.1:$pport" --initial-advertise-peer-urls "http://127.0.0.1:$pport" \
		--initial-cluster "$CLUSTER" --initial-cluster-token dbrig-etcd --initial-cluster-state new \
		--auto-compaction-mode revision --auto-compaction-retention 10000 \
		--quota-backend-bytes $((8 * 1024 * 1024 * 1024)) \
		--logger zap --log-outputs stderr
}

start() {
	apt_install etcd-server etcd-client
	local i
	for i in 0 1 2; do
		start_member "$i"
	done
	for ((i = 0; i < 600; i++)); do
		ready && break
		local j
		for j in 0 1 2; do
			pid_alive "$DIR/${MEMBERS[$j]}/pid" || die "etcd ${MEMBERS[$j]} exited during start; see $DIR/${MEMBERS[$j]}/etcd.log"
		done
		sleep 0.1
	done
	[ "$i" -lt 600 ] || die "etcd cluster not ready after 60s; see $DIR/m*/etcd.log"
	log "etcd ready: 3 members (pids $(cat "$DIR"/m1/pid) $(cat "$DIR"/m2/pid) $(cat "$DIR"/m3/pid)), endpoints $ENDPOINTS"
}

stop() {
	local m
	for m in "${MEMBERS[@]}"; do
		stop_pid "$DIR/$m/pid" 20
	done
}

case "${1:-}" in
start) start ;;
stop) stop ;;
env) printf "export DBRIG_ETCD_ENDPOINTS='%s'\n" "$ENDPOINTS" ;;
*) die "usage: $0 start|stop|env" ;;
esac
