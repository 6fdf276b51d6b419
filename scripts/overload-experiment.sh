#!/usr/bin/env bash
# The overload experiment: overload-app (a critical POST /api/payments and a sheddable
# GET /api/reports, both holding one connection of a bounded pool for a fixed service time)
# behind four protections in turn, each its own JVM on a loopback port:
#   none     the starter admitting everything (default-rps 1,000,000)
#   static   a static rate limit from the starter: each endpoint's default-rps set to
#            STATIC_SHARE of the measured capacity (all load comes from one client address,
#            so each endpoint's bucket is a limit on the whole endpoint)
#   shedding the starter's load shedding (ratelimit.shedding.*, SHED_ARGS)
#   netflix  Netflix's concurrency-limits core (SimpleLimiter, its default Vegas limit) in
#            the smallest jakarta filter, answering 503 when it refuses
# The capacity is measured first on the `none` arm (a closed loop of WORKERS clients), then
# the unloaded latency (one client, twice as long). Then each arm gets an open-loop load ramped through
# MULTIPLES of that capacity, STEP_SECONDS each, then half the capacity for RECOVERY_SECONDS;
# a fifth of the requests are payments. scripts/OverloadLoad.java sends them and computes
# goodput, P50/P99 of the admitted requests, success per class and the time to recover.
# The report (Markdown) goes to stdout, progress to stderr. See docs/benchmarks.md.
#
#   scripts/overload-experiment.sh > overload.md
#   ARMS='none shedding' STEP_SECONDS=6 scripts/overload-experiment.sh     # a shorter run
#
# Settings (environment): ARMS (none static shedding netflix), MULTIPLES (0.5 1 1.5 2 2.5 3),
# STEP_SECONDS (10), RECOVERY_SECONDS (12), WORKERS (16), POOL_SIZE (4),
# SERVICE_TIME_MICROS (50000), STATIC_SHARE (0.45), SHED_ARGS (min-limit 8 and probe.limit 4,
# sized to the pool of 4), JAVA_OPTS (-Xms256m -Xmx256m -XX:+UseSerialGC), PORT (28191),
# SKIP_BUILD (unset).
set -euo pipefail
cd "$(dirname "$0")/.."

ARMS=${ARMS:-none static shedding netflix}
MULTIPLES=${MULTIPLES:-0.5 1 1.5 2 2.5 3}
STEP_SECONDS=${STEP_SECONDS:-10}
RECOVERY_SECONDS=${RECOVERY_SECONDS:-12}
WORKERS=${WORKERS:-16}
POOL_SIZE=${POOL_SIZE:-4}
SERVICE_TIME_MICROS=${SERVICE_TIME_MICROS:-50000}
STATIC_SHARE=${STATIC_SHARE:-0.45}
# A floor and a probe sized to the pool (README, "Load shedding by priority"); default reserves.
SHED_ARGS=${SHED_ARGS:---ratelimit.shedding.min-limit=8 --ratelimit.shedding.probe.limit=4}
JAVA_OPTS=${JAVA_OPTS:--Xms256m -Xmx256m -XX:+UseSerialGC}
PORT=${PORT:-28191}
JAR=overload-app/target/overload-app-0.2.0-SNAPSHOT.jar
LOGS=target/overload-experiment
BASE=http://127.0.0.1:$PORT
APP_PID=

log() { echo "[overload] $*" >&2; }
stop() {
  if [ -n "$APP_PID" ]; then
    kill "$APP_PID" 2>/dev/null || true
    wait "$APP_PID" 2>/dev/null || true
    APP_PID=
  fi
}
trap stop EXIT

start() { # arm, extra arguments...
  local arm=$1; shift
  log "starting the $arm arm"
  # shellcheck disable=SC2086
  java $JAVA_OPTS -jar "$JAR" --server.port="$PORT" --overload.pool-size="$POOL_SIZE" \
    --overload.service-time-micros="$SERVICE_TIME_MICROS" "$@" >"$LOGS/$arm.log" 2>&1 &
  APP_PID=$!
  for _ in $(seq 1 360); do
    if curl -s -o /dev/null "$BASE/api/reports"; then return 0; fi
    kill -0 "$APP_PID" 2>/dev/null || { log "the $arm arm did not start: $LOGS/$arm.log"; exit 1; }
    sleep 0.5
  done
  log "the $arm arm did not answer within three minutes"; exit 1
}

mkdir -p "$LOGS"
if [ -z "${SKIP_BUILD:-}" ]; then
  log "building overload-app"
  ./mvnw -q -P overload-experiment -pl overload-app -am package -DskipTests >&2
fi

start capacity
java scripts/OverloadLoad.java capacity "$BASE" 5 "$WORKERS" >/dev/null   # warm-up
read -r _ CAPACITY P50 P99 < <(java scripts/OverloadLoad.java capacity "$BASE" 10 "$WORKERS")
stop
log "capacity $CAPACITY rps, unloaded P50 $P50 ms, P99 $P99 ms"
STATIC_RPS=$(awk -v c="$CAPACITY" -v s="$STATIC_SHARE" 'BEGIN { printf "%.1f", c * s }')

RESULTS=$(mktemp)
for arm in $ARMS; do
  case $arm in
    none) start none ;;
    static) start static --ratelimit.policy.default-rps="$STATIC_RPS" --ratelimit.burst-factor=1 ;;
    # shellcheck disable=SC2086
    shedding) start shedding --ratelimit.shedding.enabled=true \
      "--ratelimit.shedding.priorities.critical=POST /api/payments" \
      "--ratelimit.shedding.priorities.sheddable=GET /api/reports" $SHED_ARGS ;;
    netflix) start netflix --overload.netflix=true ;;
    *) log "unknown arm $arm"; exit 2 ;;
  esac
  java scripts/OverloadLoad.java capacity "$BASE" 5 "$WORKERS" >/dev/null   # warm-up
  # shellcheck disable=SC2086
  java scripts/OverloadLoad.java ramp "$BASE" "$arm" "$CAPACITY" "$STEP_SECONDS" "$RECOVERY_SECONDS" $MULTIPLES \
    | tee -a "$RESULTS" >&2
  stop
done

echo "Capacity (none arm, $WORKERS clients in a closed loop): **$CAPACITY rps**; unloaded latency"
echo "(one client): P50 $P50 ms, P99 **$P99 ms**. Pool $POOL_SIZE x ${SERVICE_TIME_MICROS} µs; static limit"
echo "$STATIC_RPS rps per endpoint. Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| arm | load | offered rps | goodput rps | P50 ms | P99 ms | critical ok % | sheddable ok % | refused % | failed/timed out % |"
echo "|---|---|---|---|---|---|---|---|---|---|"
awk -F'\t' '$1 == "step" { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$RESULTS"
echo
echo "| arm | recovery after the overload (s) |"
echo "|---|---|"
awk -F'\t' '$1 == "recovery" { printf "| %s | %s |\n", $2, $3 }' "$RESULTS"
rm -f "$RESULTS"
