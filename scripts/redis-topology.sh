#!/usr/bin/env bash
# Starts or stops a local Redis topology on loopback ports, keeping nothing on disk but the nodes'
# own bookkeeping (cluster configs, sentinel configs, logs) under DIR:
#   redis-topology.sh cluster  DIR BASE_PORT   three masters and three replicas on BASE_PORT..BASE_PORT+5
#   redis-topology.sh sentinel DIR BASE_PORT   a primary (BASE_PORT) with one replica (+1), and three
#                                              sentinels (+2..+4) watching it under the name `mcpx`
#   redis-topology.sh stop     DIR             stops every node started under DIR
# On success it prints what to configure: MCPX_REDIS_CLUSTER_NODES=... or MCPX_REDIS_SENTINELS=...
# and MCPX_REDIS_SENTINEL_NAME=mcpx. Needs Debian's redis-server, redis-tools and redis-sentinel.
set -euo pipefail

mode=${1:?usage: redis-topology.sh cluster|sentinel|stop DIR [BASE_PORT]}
dir=${2:?a directory for the node files}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

answers() { [ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" = PONG ]; }
cluster_ok() { redis-cli -p "$1" cluster info 2>/dev/null | grep -q cluster_state:ok; }
replicas_connected() { [ "$(redis-cli -p "$1" cluster nodes 2>/dev/null | grep -c 'slave.*connected')" -eq "$2" ]; }
replica_synced() { redis-cli -p "$1" info replication 2>/dev/null | grep -q master_link_status:up; }
sentinels_seen() { [ "$(redis-cli -p "$1" sentinel sentinels mcpx 2>/dev/null | grep -c '^name$')" -eq "$2" ]; }
wait_for() {
  local check=$1 what=$2
  for _ in $(seq 300); do
    if eval "$check"; then return 0; fi
    sleep 0.1
  done
  echo "redis-topology: $what did not happen within 30 s" >&2
  return 1
}
node() {
  local port=$1
  shift
  # No delay before a replica's first sync: a failover right after start needs replicas that have synced.
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no --repl-diskless-sync-delay 0 \
    --dir "$dir" --pidfile "$dir/redis-$port.pid" --logfile "$dir/redis-$port.log" "$@"
  wait_for "answers $port" "redis on port $port answering"
}

case "$mode" in
  cluster)
    base=${3:?a base port}
    nodes=()
    for i in 0 1 2 3 4 5; do
      port=$((base + i))
      node "$port" --cluster-enabled yes --cluster-config-file "nodes-$port.conf" --cluster-node-timeout 2000
      nodes+=("127.0.0.1:$port")
    done
    redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1
    for i in 0 1 2 3 4 5; do
      wait_for "cluster_ok $((base + i))" "cluster state ok on $((base + i))"
    done
    # Every replica attached and synced, so a failover has one to promote.
    wait_for "replicas_connected $base 3" "three replicas connected"
    # A replica that never finished its first sync refuses to take over (its data counts as too old).
    for port in $(redis-cli -p "$base" cluster nodes | awk '/slave/ { split($2, a, "[:@]"); print a[2] }'); do
      wait_for "replica_synced $port" "the replica on $port syncing"
    done
    echo "MCPX_REDIS_CLUSTER_NODES=$(printf 'redis://%s,' "${nodes[@]}" | sed 's/,$//')"
    ;;
  sentinel)
    base=${3:?a base port}
    node "$base"
    node $((base + 1)) --replicaof 127.0.0.1 "$base"
    wait_for "replica_synced $((base + 1))" "the replica syncing"
    sentinels=()
    for i in 2 3 4; do
      port=$((base + i))
      conf="$dir/sentinel-$port.conf"
      printf '%s\n' "port $port" "bind 127.0.0.1" "daemonize yes" "pidfile $dir/sentinel-$port.pid" \
        "logfile $dir/sentinel-$port.log" "dir $dir" "sentinel resolve-hostnames no" \
        "sentinel monitor mcpx 127.0.0.1 $base 2" "sentinel down-after-milliseconds mcpx 1000" \
        "sentinel failover-timeout mcpx 5000" "sentinel parallel-syncs mcpx 1" >"$conf"
      redis-sentinel "$conf"
      wait_for "answers $port" "sentinel on port $port answering"
      sentinels+=("127.0.0.1:$port")
    done
    for port in "${sentinels[@]}"; do
      wait_for "sentinels_seen ${port#*:} 2" "sentinel $port seeing the other two"
    done
    echo "MCPX_REDIS_SENTINELS=$(printf 'redis://%s,' "${sentinels[@]}" | sed 's/,$//')"
    echo "MCPX_REDIS_SENTINEL_NAME=mcpx"
    ;;
  stop)
    for pidfile in "$dir"/*.pid; do
      [ -e "$pidfile" ] || continue
      kill "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null || true
    done
    for pidfile in "$dir"/*.pid; do
      [ -e "$pidfile" ] || continue
      for _ in $(seq 50); do kill -0 "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null || break; sleep 0.1; done
      rm -f "$pidfile"
    done
    ;;
  *)
    echo "usage: redis-topology.sh cluster|sentinel|stop DIR [BASE_PORT]" >&2
    exit 2
    ;;
esac
