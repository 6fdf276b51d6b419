#!/usr/bin/env bash
# The scaling experiment (A7): three replicas of the sample app, each a real JVM on a
# loopback port, on one PostgreSQL database and one Redis. Two rows of R requests per
# second with a burst of R: GET /api/products/* GLOBAL (decided in Redis), GET /api/products
# LOCAL (decided by each replica). One client address sends 3 x R requests a second to each
# replica on each endpoint, round-robin; after a warm-up that drains the buckets, the
# requests sent in the window are counted. GLOBAL should admit R a second in all, LOCAL R a
# second per replica (3 x R). See docs/scaling.md.
#
#   scripts/scaling-experiment.sh
#
# Settings (environment): RPS (20), WINDOW_SECONDS (10), WARMUP_SECONDS (3),
# BASE_PORT (18081: replicas on the first free ports from there), PGHOST (127.0.0.1), PGPORT (5432),
# PGUSER (postgres), REDIS_HOST (127.0.0.1), REDIS_PORT (6379), REDIS_TIMEOUT (the
# limiter's default, 100ms), SKIP_BUILD (unset).
# The database and the Redis keys it creates are its own, and removed when it ends.
set -euo pipefail
cd "$(dirname "$0")/.."

RPS=${RPS:-20}
WINDOW_SECONDS=${WINDOW_SECONDS:-10}
WARMUP_SECONDS=${WARMUP_SECONDS:-3}
BASE_PORT=${BASE_PORT:-18081}
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
REDIS_HOST=${REDIS_HOST:-127.0.0.1}
REDIS_PORT=${REDIS_PORT:-6379}
REPLICAS=3
RUN=scaling_$(date +%s)_$$
DATABASE=ratelimit_$RUN
PREFIX="ratelimit-$RUN:"
LOGS=target/scaling-experiment
PIDS=()

cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  psql -q -d postgres -c "DROP DATABASE IF EXISTS $DATABASE" >/dev/null 2>&1 || true
  redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" --scan --pattern "$PREFIX*" 2>/dev/null \
    | xargs -r redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" del >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for tool in java psql redis-cli curl; do
  command -v "$tool" >/dev/null || { echo "$tool is needed" >&2; exit 1; }
done

if [ -z "${SKIP_BUILD:-}" ]; then
  echo "Building the sample app"
  ./mvnw -q -pl sample-app -am package -DskipTests
fi
JAR=$(ls sample-app/target/sample-app-*.jar | grep -v original | head -1)

port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

psql -q -d postgres -c "CREATE DATABASE $DATABASE" >/dev/null
mkdir -p "$LOGS"
urls=()
port=$((BASE_PORT - 1))
for i in $(seq 0 $((REPLICAS - 1))); do
  port=$((port + 1))
  while port_open "$port"; do port=$((port + 1)); done
  java -jar "$JAR" --spring.profiles.active=postgres --server.port="$port" \
    --spring.datasource.url="jdbc:postgresql://$PGHOST:$PGPORT/$DATABASE" --spring.datasource.username="$PGUSER" \
    --spring.data.redis.host="$REDIS_HOST" --spring.data.redis.port="$REDIS_PORT" \
    --ratelimit.redis.key-prefix="$PREFIX" --ratelimit.key-secret=scaling-experiment-shared-secret-0123456789 \
    --ratelimit.burst-factor=1 ${REDIS_TIMEOUT:+--ratelimit.redis.timeout="$REDIS_TIMEOUT"} \
    >"$LOGS/replica-$i.log" 2>&1 &
  PIDS+=("$!")
  urls+=("http://127.0.0.1:$port")
done

echo "Waiting for $REPLICAS replicas (logs in $LOGS)"
for i in "${!urls[@]}"; do
  for _ in $(seq 1 240); do
    kill -0 "${PIDS[$i]}" 2>/dev/null || break
    [ "$(curl -s -o /dev/null -w '%{http_code}' "${urls[$i]}/api/products" || true)" = 200 ] && continue 2
    sleep 0.5
  done
  echo "Replica $i (${urls[$i]}) did not start; see $LOGS/replica-$i.log" >&2
  exit 1
done

psql -q -d "$DATABASE" <<SQL
DELETE FROM rate_limit_policy WHERE endpoint IN ('GET /api/products', 'GET /api/products/*');
INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit, scope) VALUES
  ('GET /api/products/*', NULL, $RPS, 'GLOBAL'),
  ('GET /api/products', NULL, $RPS, 'LOCAL');
SQL
sleep 2 # every replica reloads on the table's notification, within a second

echo
echo "R = $RPS rps, burst factor 1, $REPLICAS replicas, $((3 * RPS)) rps offered to each replica on each" \
  "endpoint round-robin, ${WARMUP_SECONDS} s warm-up, ${WINDOW_SECONDS} s window"
echo
java scripts/ScalingLoad.java "$((3 * REPLICAS * RPS))" "$WARMUP_SECONDS" "$WINDOW_SECONDS" "$(IFS=,; echo "${urls[*]}")" \
  /api/products/1 /api/products
echo
echo "Expected: GLOBAL $((RPS * WINDOW_SECONDS)) admitted (R x window), LOCAL $((REPLICAS * RPS * WINDOW_SECONDS)) ($REPLICAS x R x window)"
for i in "${!urls[@]}"; do
  metrics=$(curl -s -u admin:change-me "${urls[$i]}/actuator/prometheus" | grep -E '^ratelimit_redis_(fallbacks|failures)_total' || true)
  echo "replica $i: ${metrics//$'\n'/, }"
done
