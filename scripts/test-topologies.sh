#!/usr/bin/env bash
# `npm run test:topologies`: the scale-out suites (three instances behind a round-robin proxy,
# apps/fixtures/test/cluster) once more on a Redis Cluster and once through Sentinel, each started
# here with scripts/redis-topology.sh on loopback ports (cluster 7150-7155, Sentinel 7170-7174) and
# stopped after. `npm test` runs them on the single node, and their failover tests on both.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=$(mktemp -d "${TMPDIR:-/tmp}/mcpx-topologies-XXXXXX")
cleanup() {
  bash scripts/redis-topology.sh stop "$dir/cluster" || true
  bash scripts/redis-topology.sh stop "$dir/sentinel" || true
  rm -rf "$dir"
}
trap cleanup EXIT

value() { sed -n "s/^$1=//p" "$2"; }

bash scripts/redis-topology.sh cluster "$dir/cluster" 7150 >"$dir/cluster.env"
bash scripts/redis-topology.sh sentinel "$dir/sentinel" 7170 >"$dir/sentinel.env"

# failover.test.ts starts topologies of its own: npm test runs it.
suite=(apps/fixtures/test/cluster --testPathIgnorePatterns failover.test.ts)

echo "== the scale-out suites on a Redis Cluster"
MCPX_TEST_REDIS_CLUSTER_NODES=$(value MCPX_REDIS_CLUSTER_NODES "$dir/cluster.env") npx jest "${suite[@]}"

echo "== the scale-out suites through Sentinel"
MCPX_TEST_REDIS_SENTINELS=$(value MCPX_REDIS_SENTINELS "$dir/sentinel.env") \
  MCPX_TEST_REDIS_SENTINEL_NAME=$(value MCPX_REDIS_SENTINEL_NAME "$dir/sentinel.env") npx jest "${suite[@]}"
