#!/usr/bin/env bash
# End-to-end load test: the smallest web application with the starter (minimal-app) and the
# sample app, each with the rate limiter off, on (every request admitted) and refusing (almost
# every request 429), and the sample's catalogue endpoint behind bucket4j-spring-boot-starter
# (bucket4j-peer-app) off, admitting and refusing. Every variant runs as its own `java -jar`
# process on loopback; wrk drives them in turn, several rounds, and the script prints a
# Markdown report of the medians, the CPU time each application spent per request, and their
# ratios and differences on stdout (progress goes to stderr). What it measures and why:
# docs/benchmarks.md.
#
#   scripts/load-test.sh > results.md                       # the full run (about 20 minutes)
#   FORKS=5 CONNECTIONS=4 VARIANTS='minimal-disabled minimal-enabled minimal-rejected' \
#     scripts/load-test.sh > minimal.md                     # the limiter's cost, fresh JVMs
#   ROUNDS=2 DURATION=5 scripts/load-test.sh > results.md   # a smoke run
#   PROFILE=1 VARIANTS='disabled enabled' scripts/load-test.sh > profile.md
#                                                           # where the limiter's CPU goes
#   PROFILE=alloc VARIANTS='minimal-disabled minimal-enabled' scripts/load-test.sh > alloc.md
#                                                           # where it allocates
#   FORKS=3 CONNECTIONS=4 VARIANTS='minimal-enabled minimal-shedding' \
#     scripts/load-test.sh > shedding.md                    # what load shedding adds per request
#   FORKS=3 CONNECTIONS=4 VARIANTS='minimal-disabled minimal-enabled minimal-layered' \
#     scripts/load-test.sh > layered.md                     # three layered limits against one
#
# Settings (environment variables):
#   ROUNDS       measured runs of each variant, alternating variants, per fork    (5)
#   FORKS        JVMs of each variant, one set after another: each set is started,
#                warmed up and measured for ROUNDS rounds, then stopped. Two JVMs of one
#                application differ by a few percent, so a ratio of one pair of JVMs
#                can say more about the pair than about the limiter                (1)
#   DURATION     seconds of each measured run                                     (10)
#   WARMUP       least seconds of load on each variant before the first round; the
#                warm-up goes on in 5 s steps until the JIT compilers of the
#                variant's JVM were (almost) idle for a whole step                (20)
#   WARMUP_MAX   most seconds of warm-up of each variant                          (180)
#   CONNECTIONS  wrk connections, all from 127.0.0.1, so one client to the limiters (16)
#   THREADS      wrk threads                                                      (1)
#   VARIANTS     which variants, in this order                 (all nine, see VARIANT_LIST;
#                enabled-admin, minimal-disabled-no-osiv and minimal-layered on request)
#   PIN          1: apps on APP_CPUS, wrk on WRK_CPUS with taskset; 0: no pinning (1)
#   APP_CPUS     CPUs of the applications                                         (1)
#   WRK_CPUS     CPUs of wrk                                                      (0)
#   JAVA_OPTS    JVM options of every application     (-Xms512m -Xmx512m -XX:+UseSerialGC)
#   BASE_PORT    first loopback port; the variants use consecutive ones           (28081)
#   SKIP_BUILD   1: use the jars already built                                    (0)
#   OUT_DIR      runs.tsv (every run), report.md and each application's log       (target/load-test)
#   PROFILE      1: sample every measured run's CPU with async-profiler (fetched from Maven
#                Central, Linux only) and report where each variant's CPU went: the
#                limiter's own frames, the socket writes, the rest of the request threads
#                and the other threads. alloc: sample what every measured run allocates
#                instead, and report bytes per request split the same way, with Tomcat's
#                encoding of the response fields in place of the socket writes.
#                Profiling slows the applications, so compare such figures (but for the
#                bytes, which do not depend on speed) only with each other          (0)
#   ASYNC_PROFILER_VERSION  the tools.profiler:async-profiler version for PROFILE=1   (3.0)
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-5}
FORKS=${FORKS:-1}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-20}
WARMUP_MAX=${WARMUP_MAX:-180}
CONNECTIONS=${CONNECTIONS:-16}
THREADS=${THREADS:-1}
VARIANT_LIST="minimal-disabled minimal-enabled minimal-rejected disabled enabled rejected bucket4j-disabled bucket4j bucket4j-rejected"
# Not in the default run: the limiter's cost with its admin endpoint exposed on the
# application's port, next to `enabled`, whose admin endpoint is not exposed; and the
# minimal app without the limiter and without Spring Boot's open-in-view interceptor, which
# the JPA the starter brings turns on for every web request of an application that does
# not set spring.jpa.open-in-view. And the minimal app with three layered limits on its
# endpoint instead of the built-in default policy alone (scripts/load-test/minimal-layered.*).
# And the minimal app with load shedding on (an adaptive concurrency limit far above the
# load), whose cost per request against minimal-enabled is the shedding stage's.
OPTIONAL_VARIANTS="enabled-admin minimal-disabled-no-osiv minimal-layered minimal-shedding"
VARIANTS=${VARIANTS:-$VARIANT_LIST}
PIN=${PIN:-1}
APP_CPUS=${APP_CPUS:-1}
WRK_CPUS=${WRK_CPUS:-0}
JAVA_OPTS=${JAVA_OPTS:--Xms512m -Xmx512m -XX:+UseSerialGC}
BASE_PORT=${BASE_PORT:-28081}
SKIP_BUILD=${SKIP_BUILD:-0}
OUT_DIR=${OUT_DIR:-target/load-test}
PROFILE=${PROFILE:-0}
ASYNC_PROFILER_VERSION=${ASYNC_PROFILER_VERSION:-3.0}

MINIMAL_JAR=minimal-app/target/minimal-app-0.2.0-SNAPSHOT.jar
SAMPLE_JAR=sample-app/target/sample-app-0.2.0-SNAPSHOT.jar
PEER_JAR=bucket4j-peer-app/target/bucket4j-peer-app-0.2.0-SNAPSHOT.jar
# The peer's version, for the report (the parent pom's property).
PEER_VERSION=$(sed -n 's:.*<bucket4j-spring-boot-starter.version>\(.*\)</bucket4j-spring-boot-starter.version>.*:\1:p' pom.xml)

read -r -a variants <<<"$VARIANTS"
declare -A pids=() ports=() expected_bodies=()

log() {
  echo "[load-test $(date +%H:%M:%S)] $*" >&2
}

fail() {
  echo "load-test: $*" >&2
  exit 1
}

stop_apps() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 30); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  pids=()
}
trap stop_apps EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- what each variant is ---------------------------------------------------------------

describe() {
  case $1 in
    minimal-disabled) echo "minimal app, limiter off (\`ratelimit.enabled=false\`)" ;;
    minimal-disabled-no-osiv) echo "minimal app, limiter off, \`spring.jpa.open-in-view=false\`" ;;
    minimal-enabled) echo "minimal app, limiter on, built-in default policy at 1,000,000 rps per client: all admitted" ;;
    minimal-layered) echo "minimal app, limiter on, three limits per client: the endpoint's own row at 1,000,000 rps, 1,000,000,000 requests an hour across the API, 30,000,000 points a minute for its group: all admitted" ;;
    minimal-rejected) echo "minimal app, limiter on, built-in default policy at 1 rps per client: almost all 429" ;;
    minimal-shedding) echo "as minimal-enabled, with load shedding on (\`ratelimit.shedding.enabled=true\`): all admitted" ;;
    disabled) echo "sample app, limiter off (\`ratelimit.enabled=false\`)" ;;
    enabled) echo "sample app, limiter on, 1,000,000 rps per client: all admitted" ;;
    enabled-admin) echo "as enabled, with the limiter's admin endpoint exposed on the application's port" ;;
    rejected) echo "sample app, limiter on, 1 rps per client: almost all 429" ;;
    bucket4j-disabled) echo "peer app, bucket4j off (\`bucket4j.enabled=false\`)" ;;
    bucket4j) echo "peer app, bucket4j-spring-boot-starter $PEER_VERSION, 1,000,000 rps per client: all admitted" ;;
    bucket4j-rejected) echo "peer app, bucket4j-spring-boot-starter $PEER_VERSION, 1 rps per client: almost all 429" ;;
  esac
}

# The command line of a variant. Limits are per client address with bursts of twice the
# rate, in both limiters (the sample's burst factor is 2).
app_args() {
  case $1 in
    minimal-disabled) echo "$MINIMAL_JAR --ratelimit.enabled=false" ;;
    minimal-disabled-no-osiv) echo "$MINIMAL_JAR --ratelimit.enabled=false --spring.jpa.open-in-view=false" ;;
    minimal-enabled) echo "$MINIMAL_JAR --ratelimit.policy.default-rps=1000000" ;;
    minimal-layered) echo "$MINIMAL_JAR --ratelimit.policy.default-rps=1000000 --spring.config.additional-location=file:scripts/load-test/minimal-layered.properties" ;;
    minimal-rejected) echo "$MINIMAL_JAR --ratelimit.policy.default-rps=1" ;;
    minimal-shedding) echo "$MINIMAL_JAR --ratelimit.policy.default-rps=1000000 --ratelimit.shedding.enabled=true" ;;
    disabled) echo "$SAMPLE_JAR --spring.profiles.active=loadtest --ratelimit.enabled=false" ;;
    enabled) echo "$SAMPLE_JAR --spring.profiles.active=loadtest --spring.flyway.placeholders.rps=1000000" ;;
    enabled-admin) echo "$SAMPLE_JAR --spring.profiles.active=loadtest --spring.flyway.placeholders.rps=1000000 --management.endpoints.web.exposure.include=health,info,prometheus,ratelimit" ;;
    rejected) echo "$SAMPLE_JAR --spring.profiles.active=loadtest --spring.flyway.placeholders.rps=1" ;;
    bucket4j-disabled) echo "$PEER_JAR --bucket4j.enabled=false" ;;
    bucket4j) echo "$PEER_JAR --peer.limit.rps=1000000 --peer.limit.capacity=2000000" ;;
    bucket4j-rejected) echo "$PEER_JAR --peer.limit.rps=1 --peer.limit.capacity=2" ;;
  esac
}

# Whether the variant is meant to refuse the load (rather than admit it).
refuses() {
  [[ $1 == *rejected ]]
}

# The endpoint the load goes to: one product on the minimal app (a template with a path
# variable, as most APIs have), the catalogue on the sample and its peer.
endpoint() {
  case $1 in
    minimal-*) echo "/api/products/1" ;;
    *) echo "/api/products" ;;
  esac
}

# A URL that answers once the application is up: the minimal app has no Actuator.
ready_url() {
  case $1 in
    minimal-*) echo "http://127.0.0.1:${ports[$1]}$(endpoint "$1")" ;;
    *) echo "http://127.0.0.1:${ports[$1]}/actuator/health" ;;
  esac
}

# A response header that only an active limiter of that variant sets, or nothing.
limiter_header() {
  case $1 in
    minimal-enabled | minimal-layered | minimal-shedding | minimal-rejected | enabled | enabled-admin | rejected) echo "RateLimit-Policy" ;;
    bucket4j | bucket4j-rejected) echo "X-Rate-Limit-Remaining" ;;
  esac
}

# --- preparation ------------------------------------------------------------------------

ensure_wrk() {
  command -v wrk >/dev/null && return 0
  if command -v apt-get >/dev/null && [[ $(id -u) == 0 ]]; then
    log "installing wrk (Debian package)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq wrk >&2 || { apt-get update -qq >&2 && apt-get install -y -qq wrk >&2; } \
      || fail "could not install wrk with apt-get"
    return 0
  fi
  fail "wrk is not installed. Install it (Debian, Ubuntu: apt-get install wrk; macOS: brew install wrk) and run again."
}

check_settings() {
  local v
  [[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || fail "ROUNDS must be a positive integer, not '$ROUNDS'"
  [[ $FORKS =~ ^[1-9][0-9]*$ ]] || fail "FORKS must be a positive integer, not '$FORKS'"
  [[ $DURATION =~ ^[1-9][0-9]*$ ]] || fail "DURATION must be a positive number of seconds, not '$DURATION'"
  [[ $WARMUP =~ ^[0-9]+$ ]] || fail "WARMUP must be a number of seconds, not '$WARMUP'"
  [[ $WARMUP_MAX =~ ^[0-9]+$ ]] || fail "WARMUP_MAX must be a number of seconds, not '$WARMUP_MAX'"
  ((${#variants[@]} > 0)) || fail "VARIANTS is empty"
  for v in "${variants[@]}"; do
    [[ " $VARIANT_LIST $OPTIONAL_VARIANTS " == *" $v "* ]] \
      || fail "unknown variant '$v' in VARIANTS; known: $VARIANT_LIST $OPTIONAL_VARIANTS"
  done
  [[ $PROFILE == 0 || $PROFILE == 1 || $PROFILE == alloc ]] || fail "PROFILE must be 0, 1 or alloc, not '$PROFILE'"
  if [[ $PIN == 1 ]]; then
    command -v taskset >/dev/null || fail "PIN=1 needs taskset (util-linux); run with PIN=0 to skip pinning"
    (($(nproc) >= 2)) || { log "one CPU only: not pinning"; PIN=0; }
  fi
}

build() {
  if [[ $SKIP_BUILD == 1 ]]; then
    local v jar
    for v in "${variants[@]}"; do
      read -r jar _ <<<"$(app_args "$v")"
      [[ -f $jar ]] || fail "SKIP_BUILD=1 but $jar is missing"
    done
    return 0
  fi
  log "building the minimal app, the sample app and the peer app"
  # Spring Boot repackages an application jar only when the module's own jar is rebuilt,
  # which a change in another module alone does not cause: the old jar would be measured.
  rm -f "$MINIMAL_JAR" "$SAMPLE_JAR" "$PEER_JAR"
  ./mvnw -q -pl minimal-app,sample-app,bucket4j-peer-app -am package -DskipTests >&2
}

# async-profiler's native library, from its jar on Maven Central, for PROFILE=1.
prepare_profiler() {
  [[ $PROFILE != 0 ]] || return 0
  local platform dir=$OUT_DIR/async-profiler
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) platform=linux-x64 ;;
    Linux-aarch64) platform=linux-arm64 ;;
    *) fail "PROFILE=1 needs Linux on x86_64 or aarch64 (async-profiler's native library)" ;;
  esac
  command -v jcmd >/dev/null || fail "PROFILE=1 needs jcmd (a JDK, not a JRE)"
  log "fetching async-profiler $ASYNC_PROFILER_VERSION"
  ./mvnw -q dependency:copy -Dartifact="tools.profiler:async-profiler:$ASYNC_PROFILER_VERSION" \
    -DoutputDirectory="$dir" >&2 || fail "could not fetch tools.profiler:async-profiler:$ASYNC_PROFILER_VERSION"
  (cd "$dir" && jar xf "async-profiler-$ASYNC_PROFILER_VERSION.jar" "$platform/libasyncProfiler.so") \
    || fail "the async-profiler jar has no $platform library"
  PROFILER_LIB=$(cd "$dir/$platform" && pwd)/libasyncProfiler.so
}

# Sends a command to async-profiler in a running JVM, loading it on first use. jcmd would
# take the "=" of the options for one of its own, hence the quotes within the argument.
profiler() {
  local pid=$1 command=$2
  jcmd "$pid" JVMTI.agent_load "$PROFILER_LIB" "\"$command\"" >/dev/null || fail "async-profiler: '$command' failed in $pid"
}

# The command prefix that runs a process on the given CPUs, or nothing without pinning.
pin_prefix() {
  [[ $PIN == 1 ]] && echo "taskset -c $1"
  return 0
}

port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start_app() {
  local variant=$1 port=$2 args
  port_open "$port" && fail "port $port is in use; set BASE_PORT to a free range"
  read -r -a args <<<"$(app_args "$variant")"
  local opts prefix
  read -r -a opts <<<"$JAVA_OPTS"
  # Without this, samples in inlined code are charged to the frame of the last safepoint.
  [[ $PROFILE != 0 ]] && opts+=(-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints)
  read -r -a prefix <<<"$(pin_prefix "$APP_CPUS")"
  # A simple command, so that $! is the JVM itself (taskset execs it).
  "${prefix[@]}" java "${opts[@]}" -jar "${args[@]}" --server.address=127.0.0.1 --server.port="$port" \
    >>"$OUT_DIR/$variant.log" 2>&1 &
  pids[$variant]=$!
  ports[$variant]=$port
}

wait_ready() {
  local variant=$1
  for _ in $(seq 1 600); do
    kill -0 "${pids[$variant]}" 2>/dev/null || {
      tail -n 30 "$OUT_DIR/$variant.log" >&2
      fail "$variant stopped during startup (log: $OUT_DIR/$variant.log)"
    }
    [[ $(curl -s -o /dev/null -w '%{http_code}' "$(ready_url "$variant")") == [24]?? ]] && return 0
    sleep 0.5
  done
  fail "$variant was not ready after 300 s (log: $OUT_DIR/$variant.log)"
}

# The "name":value members of a flat JSON body, sorted: the order of a Map.of's keys
# changes from one JVM to the next.
json_members() {
  tr '{},[]' '\n\n\n\n\n' <<<"$1" | grep -v '^$' | sort | tr '\n' ' '
}

# Proves each variant is what it claims before anything is measured: the same body on the
# same endpoint everywhere, the limiter's header where a limiter is on and nowhere else,
# and a 429 by the third request where the limit is 1 rps with bursts of 2.
check_app() {
  local variant=$1 path url header status headers body expected
  path=$(endpoint "$variant")
  url="http://127.0.0.1:${ports[$variant]}$path"
  header=$(limiter_header "$variant")
  headers=$(curl -s -D - -o "$OUT_DIR/$variant.body" "$url")
  status=$(head -n 1 <<<"$headers" | awk '{print $2}')
  body=$(cat "$OUT_DIR/$variant.body")
  [[ $status == 200 ]] || fail "$variant answered $status to the first GET $path"
  [[ $body == [\[{]* ]] || fail "$variant answered $path with: $body"
  # The first variant of an endpoint sets the body every other one must answer.
  expected=${expected_bodies[$path]:-$body}
  expected_bodies[$path]=$expected
  [[ $(json_members "$body") == "$(json_members "$expected")" && ${#body} == "${#expected}" ]] \
    || fail "$variant answered a different body: $body, not $expected"
  if [[ -n $header ]]; then
    grep -qi "^$header:" <<<"$headers" || fail "$variant sent no $header field: is its limiter on?"
  else
    ! grep -qiE "^(RateLimit-Policy|X-Rate-Limit-Remaining):" <<<"$headers" \
      || fail "$variant is meant to run without a limiter but sent a rate-limit field"
  fi
  # The admin endpoint answers the sample's admin where it is exposed, and is not found elsewhere.
  if [[ $variant == enabled || $variant == enabled-admin ]]; then
    local admin expected=404
    [[ $variant == enabled-admin ]] && expected=200
    admin=$(curl -s -o /dev/null -w '%{http_code}' -u admin:change-me "http://127.0.0.1:${ports[$variant]}/actuator/ratelimit")
    [[ $admin == "$expected" ]] || fail "$variant answered $admin to GET /actuator/ratelimit as admin, not $expected"
  fi
  # Three limits in the fields, or the rows were not loaded.
  if [[ $variant == minimal-layered ]]; then
    grep -qiE '^RateLimit-Policy: "GET /api/products/\*";[^,]*, "hourly";[^,]*, "points";' <<<"$headers" \
      || fail "$variant does not charge the three limits of scripts/load-test/minimal-layered.sql: $(grep -i '^RateLimit-Policy:' <<<"$headers")"
  fi
  if refuses "$variant"; then
    local codes
    codes=$(for _ in 1 2 3 4; do curl -s -o /dev/null -w '%{http_code} ' "$url"; done)
    [[ $codes == *429* ]] || fail "$variant should refuse most requests but answered: $codes"
  fi
}

# --- measuring --------------------------------------------------------------------------

CLK_TCK=$(getconf CLK_TCK)

# CPU time (user + system) in clock ticks of a process or thread, from its /proc stat file;
# the fields after the command name, which may hold spaces.
ticks() {
  sed 's/^.*) //' "$1" 2>/dev/null | awk '{ print $12 + $13 }'
}

# "collections eden_used_kb eden_capacity_kb gc_seconds" of a JVM, from its performance
# counters (jstat reads them without stopping it), or nothing without jstat.
eden() {
  command -v jstat >/dev/null || return 0
  jstat -gc "$1" 2>/dev/null | awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
    NR == 2 { printf "%d %s %s %s\n", $c["YGC"] + $c["FGC"], $c["EU"], $c["EC"], $c["GCT"] }'
}

# Milliseconds the JVM spent collecting between two eden() readings, or -1.
gc_millis() {
  local before=$1 after=$2
  [[ -n $before && -n $after ]] || { echo -1; return 0; }
  awk -v b="$before" -v a="$after" 'BEGIN { split(b, x, " "); split(a, y, " "); printf "%.0f", (y[4] - x[4]) * 1000 }'
}

# Bytes a JVM allocated between two eden() readings. Every collection empties eden (the
# serial and parallel collectors; the heap is fixed by -Xms = -Xmx) when it is all but full,
# so eden's capacity per collection plus the change in its use is what was allocated, to
# within the unused end of eden at each collection (a TLAB or less, well under 1 %).
allocated() {
  local before=$1 after=$2
  [[ -n $before && -n $after ]] || { echo -1; return 0; }
  awk -v b="$before" -v a="$after" 'BEGIN { split(b, x, " "); split(a, y, " ");
    printf "%.0f", ((y[1] - x[1]) * y[3] + y[2] - x[2]) * 1024 }'
}

# CPU ticks of the JIT compiler threads of a JVM so far.
jit_ticks() {
  local task total=0
  for task in /proc/"$1"/task/*; do
    [[ $(cat "$task/comm" 2>/dev/null) == C[12]\ CompilerThre* ]] && total=$((total + $(ticks "$task/stat")))
  done
  echo "$total"
}

# Load on a variant until its JVM has compiled what the load needs: at least WARMUP
# seconds, then until the JIT used at most 2 % of a 5 s step (it competes with the
# application on the same CPU, so a JVM still compiling is measured slow), at most
# WARMUP_MAX seconds.
warm_up() {
  local variant=$1 pid=${pids[$1]} elapsed=0 step=5 jit_before jit_used
  while ((elapsed < WARMUP_MAX)); do
    jit_before=$(jit_ticks "$pid")
    drive "$variant" "$step"
    elapsed=$((elapsed + step))
    jit_used=$(($(jit_ticks "$pid") - jit_before))
    if ((elapsed >= WARMUP && jit_used * 100 <= 2 * step * CLK_TCK)); then
      log "$variant warm after $elapsed s"
      return 0
    fi
  done
  log "$variant: the JIT was still busy after $WARMUP_MAX s of warm-up"
  if ((FORKS > 1)); then
    STILL_COMPILING+=("$variant (fork $fork)")
  else
    STILL_COMPILING+=("$variant")
  fi
}

# One wrk run; sets RESULT to "requests duration_us non2xx socket_errors p50_us p90_us p99_us".
drive() {
  local variant=$1 seconds=$2 line prefix
  read -r -a prefix <<<"$(pin_prefix "$WRK_CPUS")"
  line=$("${prefix[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${seconds}s" -s scripts/load-test/report.lua \
    "http://127.0.0.1:${ports[$variant]}$(endpoint "$variant")" | grep '^RESULT ') || fail "wrk failed on $variant"
  RESULT=$(sed -E 's/^RESULT requests=([0-9]+) duration_us=([0-9]+) non2xx=([0-9]+) socket_errors=([0-9]+) p50_us=([0-9]+) p90_us=([0-9]+) p99_us=([0-9]+)$/\1 \2 \3 \4 \5 \6 \7/' <<<"$line")
}

# The median of the numbers on stdin.
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit; print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# A column of a variant's runs in runs.tsv, in round order, of one fork or of all. The
# columns: 1 round (counted over all forks), 2 variant, 3 rps, 4 p50_ms, 5 p90_ms, 6 p99_ms,
# 7 non2xx_share, 8 socket_errors, 9 cpu_us_per_request, 10 jit_ms, 11 requests, 12 fork,
# 13 bytes_per_request (allocated by the JVM, -1 without jstat), 14 gc_ms (-1 without jstat).
column_of() {
  local variant=$1 column=$2 fork=${3:-0}
  awk -v v="$variant" -v c="$column" -v f="$fork" 'NR > 1 && $2 == v && (f == 0 || $12 == f) { print $c }' \
    "$OUT_DIR/runs.tsv"
}

has_variant() {
  [[ " ${variants[*]} " == *" $1 "* ]]
}

# a / b (op "/") or a − b (op "-") of two numbers, formatted as ratios or differences are.
compare_awk='function cmp(x, y) { return (op == "/") ? x / y : x - y }
  function fmt(v) { return sprintf((op == "/") ? "%.3f" : "%+.1f", v) }'

# "ratio of medians | median (min-max) of the per-round ratios" of a column, a / b; with op
# "-", the same of differences, a − b.
ratio_cells() {
  local a=$1 b=$2 column=$3 op=${4:-/} ma mb
  ma=$(column_of "$a" "$column" | median)
  mb=$(column_of "$b" "$column" | median)
  awk -v ma="$ma" -v mb="$mb" -v op="$op" "$compare_awk"' BEGIN { printf "%s", fmt(cmp(ma, mb)) }'
  printf ' | '
  paste <(column_of "$a" "$column") <(column_of "$b" "$column") | awk -v op="$op" "$compare_awk"' { print cmp($1, $2) }' \
    | sort -g | awk -v op="$op" "$compare_awk"' { v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
        printf "%s (%s%s%s)", fmt(m), fmt(v[1]), (op == "/") ? "–" : " to ", fmt(v[NR]) }'
}

# A report row for a target: "met" when the ratio of medians is at least (ge), above (gt) or
# at most (le) the bound.
target_row() {
  local label=$1 a=$2 b=$3 column=$4 op=$5 bound=$6 ratio cells verdict
  has_variant "$a" && has_variant "$b" || return 0
  cells=$(ratio_cells "$a" "$b" "$column")
  ratio=${cells%% *}
  verdict=$(awk -v r="$ratio" -v b="$bound" -v op="$op" \
    'BEGIN { ok = (op == "ge") ? (r >= b) : (op == "gt") ? (r > b) : (r <= b); print ok ? "met" : "**not met**" }')
  local sign='≥'
  [[ $op == gt ]] && sign='>'
  [[ $op == le ]] && sign='≤'
  echo "| $label | $cells | $sign $bound | $verdict |"
}

# The ratio of a column's medians, a / b, within each fork, comma-separated; with op "-",
# their difference, a − b.
fork_ratios() {
  local a=$1 b=$2 column=$3 op=${4:-/} fork ma mb
  for fork in $(seq 1 "$FORKS"); do
    ma=$(column_of "$a" "$column" "$fork" | median)
    mb=$(column_of "$b" "$column" "$fork" | median)
    awk -v ma="$ma" -v mb="$mb" -v first="$fork" -v op="$op" "$compare_awk"' BEGIN { printf "%s%s", (first == 1) ? "" : ", ", fmt(cmp(ma, mb)) }'
  done
}

# A report row for a target on a difference: "met" when the difference of medians is at most
# the bound.
difference_row() {
  local label=$1 a=$2 b=$3 column=$4 bound=$5 cells verdict
  has_variant "$a" && has_variant "$b" || return 0
  cells=$(ratio_cells "$a" "$b" "$column" -)
  verdict=$(awk -v d="${cells%% *}" -v b="$bound" 'BEGIN { print (d <= b) ? "met" : "**not met**" }')
  echo "| $label | $cells | ${bound:+≤ $bound} | ${bound:+$verdict} |"
}

info_row() {
  local label=$1 a=$2 b=$3 column=$4
  has_variant "$a" && has_variant "$b" || return 0
  echo "| $label | $(ratio_cells "$a" "$b" "$column") | | |"
}

report() {
  local v
  echo "#### Load test of $(date -u +%Y-%m-%d)"
  echo
  echo "- Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs," \
    "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, Linux $(uname -r)," \
    "$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
  echo "- $(java -version 2>&1 | head -n 2 | tail -n 1), \`$JAVA_OPTS\`; $(wrk -v 2>&1 | head -n 1 | cut -d' ' -f1-2)"
  echo "- Load average before: $LOAD_BEFORE; after: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [[ $PIN == 1 ]]; then
    echo "- Pinned with taskset: applications on CPU $APP_CPUS, wrk on CPU $WRK_CPUS"
  else
    echo "- Not pinned: applications and wrk share all CPUs"
  fi
  local variants_setting=""
  [[ $VARIANTS != "$VARIANT_LIST" ]] && variants_setting="VARIANTS='${variants[*]}' "
  echo "- Command: \`ROUNDS=$ROUNDS FORKS=$FORKS DURATION=$DURATION WARMUP=$WARMUP WARMUP_MAX=$WARMUP_MAX CONNECTIONS=$CONNECTIONS" \
    "THREADS=$THREADS PIN=$PIN $variants_setting""scripts/load-test.sh\`"
  echo "- CPU µs/req: CPU time of the application's JVM (all its threads) during a run, per request;" \
    "bytes/req: what the JVM allocated during a run (eden's use and collections, by jstat), per request;" \
    "GC ‰: thousandths of the run's wall time the JVM spent collecting"
  echo "- \`GET /api/products/1\` (minimal app) or \`GET /api/products\` (sample and peer) on loopback, $CONNECTIONS keep-alive connections from one address;" \
    "$FORKS JVM(s) of each variant, one set after another; in each set at least $WARMUP s of warm-up per variant (until its JIT is idle)," \
    "then $ROUNDS round(s) of $DURATION s per variant, variants alternating (each round starts one variant later);" \
    "medians over all rounds of all sets"
  echo
  echo "| variant | what runs | req/s | CPU µs/req | bytes/req | GC ‰ | p50 ms | p90 ms | p99 ms | non-2xx |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for v in "${variants[@]}"; do
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$v" "$(describe "$v")" \
      "$(column_of "$v" 3 | median | awk '{ printf "%.0f", $1 }')" \
      "$(column_of "$v" 9 | median | awk '{ printf "%.1f", $1 }')" \
      "$(column_of "$v" 13 | median | awk '{ if ($1 < 0) printf "n/a"; else printf "%.0f", $1 }')" \
      "$(column_of "$v" 14 | awk -v d="$DURATION" '{ print $1 / d }' | median | awk '{ if ($1 < 0) printf "n/a"; else printf "%.1f", $1 }')" \
      "$(column_of "$v" 4 | median | awk '{ printf "%.2f", $1 }')" \
      "$(column_of "$v" 5 | median | awk '{ printf "%.2f", $1 }')" \
      "$(column_of "$v" 6 | median | awk '{ printf "%.2f", $1 }')" \
      "$(column_of "$v" 7 | median | awk '{ printf "%.1f %%", $1 * 100 }')"
  done
  # The minimal app's targets: the limiter's added CPU per admitted request at most 5 µs with
  # a few connections and 8 µs with many, throughput on / off at least 0.95 with a few.
  local cpu_bound=8 minimal_throughput=info_row
  ((CONNECTIONS <= 4)) && cpu_bound=5 && minimal_throughput=target_row
  local differences
  differences=$(
    difference_row "minimal app: CPU µs per request added by the limiter (on − off)" minimal-enabled minimal-disabled 9 "$cpu_bound"
    difference_row "minimal app: bytes allocated per request by the limiter (on − off)" minimal-enabled minimal-disabled 13 256
    difference_row "minimal app: CPU µs per request added by the limiter with three layered limits (layered − off)" minimal-layered minimal-disabled 9 "$cpu_bound"
    difference_row "minimal app: CPU µs per request, three layered limits − one limit (layered − on)" minimal-layered minimal-enabled 9 ""
    difference_row "minimal app: bytes per request, three layered limits − one limit (layered − on)" minimal-layered minimal-enabled 13 ""
    difference_row "minimal app: CPU µs per refused request − per request with the limiter off" minimal-rejected minimal-disabled 9 ""
    difference_row "minimal app, limiter off: CPU µs per request of open-in-view (on − off)" minimal-disabled minimal-disabled-no-osiv 9 ""
    difference_row "minimal app, limiter off: bytes per request of open-in-view (on − off)" minimal-disabled minimal-disabled-no-osiv 13 ""
    difference_row "sample app: CPU µs per request added by the limiter (on − off)" enabled disabled 9 ""
    difference_row "sample app: bytes allocated per request by the limiter (on − off)" enabled disabled 13 ""
    difference_row "sample app: CPU µs per refused request − per request with the limiter off" rejected disabled 9 ""
    difference_row "peer app: CPU µs per request added by bucket4j (on − off)" bucket4j bucket4j-disabled 9 ""
  )
  if [[ -n $differences ]]; then
    echo
    echo "| difference | of medians | per round: median (min–max) | target | |"
    echo "|---|---|---|---|---|"
    echo "$differences"
  fi
  local ratios
  ratios=$(
    $minimal_throughput "minimal app: req/s, limiter on / off" minimal-enabled minimal-disabled 3 ge 0.95
    target_row "minimal app: CPU per request, limiter refusing / admitting" minimal-rejected minimal-enabled 9 le 0.5
    info_row "minimal app: req/s, limiter refusing / admitting" minimal-rejected minimal-enabled 3
    target_row "req/s, limiter on / off" enabled disabled 3 ge 0.95
    info_row "req/s, limiter on with admin endpoint exposed / off" enabled-admin disabled 3
    info_row "req/s, limiter on with admin endpoint exposed / without" enabled-admin enabled 3
    target_row "req/s, limiter on / bucket4j on" enabled bucket4j 3 ge 1.00
    info_row "req/s, bucket4j on / off" bucket4j bucket4j-disabled 3
    info_row "req/s, peer app / sample app, both without limiter" bucket4j-disabled disabled 3
    target_row "req/s, limiter refusing / admitting" rejected enabled 3 gt 1.00
    target_row "req/s, limiter refusing / bucket4j refusing" rejected bucket4j-rejected 3 ge 1.00
    info_row "req/s, bucket4j refusing / admitting" bucket4j-rejected bucket4j 3
    info_row "CPU per request, limiter on / off" enabled disabled 9
    info_row "CPU per request, limiter on with admin endpoint exposed / without" enabled-admin enabled 9
    info_row "CPU per request, limiter on / bucket4j on" enabled bucket4j 9
    info_row "CPU per request, bucket4j on / off" bucket4j bucket4j-disabled 9
    info_row "CPU per request, limiter refusing / admitting" rejected enabled 9
    info_row "p50, limiter on / off" enabled disabled 4
    info_row "p50, limiter on / bucket4j on" enabled bucket4j 4
    info_row "p50, limiter refusing / admitting" rejected enabled 4
  )
  if [[ -n $ratios ]]; then
    echo
    echo "| ratio | of medians | per round: median (min–max) | target | |"
    echo "|---|---|---|---|---|"
    echo "$ratios"
  fi
  if ((FORKS > 1)); then
    local on off app
    for app in minimal minimal-layered sample; do
      on=enabled off=disabled
      [[ $app == minimal ]] && on=minimal-enabled off=minimal-disabled
      [[ $app == minimal-layered ]] && on=minimal-layered off=minimal-disabled
      has_variant "$on" && has_variant "$off" || continue
      echo
      echo "Each fork's JVMs of the $app app on their own, that fork's medians: req/s, limiter on / off:" \
        "$(fork_ratios "$on" "$off" 3); CPU µs per request added by the limiter: $(fork_ratios "$on" "$off" 9 -);" \
        "bytes per request added: $(fork_ratios "$on" "$off" 13 -)."
    done
  fi
  if ((${#STILL_COMPILING[@]} > 0)); then
    echo
    echo "**Not warm:** the JIT of ${STILL_COMPILING[*]} was still busy after $WARMUP_MAX s of warm-up."
  fi
  local busy_jit
  busy_jit=$(awk -v d="$DURATION" 'NR > 1 && $10 > d * 1000 * 0.02 { printf "%s%s (round %s, %d ms)", sep, $2, $1, $10; sep = ", " }' \
    "$OUT_DIR/runs.tsv")
  if [[ -n $busy_jit ]]; then
    echo
    echo "The JIT used more than 2 % of a run in: $busy_jit."
  fi
  local socket_errors
  socket_errors=$(awk 'NR > 1 { s += $8 } END { print s + 0 }' "$OUT_DIR/runs.tsv")
  if ((socket_errors > 0)); then
    echo
    echo "wrk counted $socket_errors socket errors (connect, read, write or timeout) over all runs; see $OUT_DIR/runs.tsv."
  fi
  [[ $PROFILE != 0 ]] && profile_report
  for v in "${variants[@]}"; do
    refuses "$v" && continue
    if awk -v v="$v" 'NR > 1 && $2 == v && $7 > 0 { found = 1 } END { exit !found }' "$OUT_DIR/runs.tsv"; then
      echo
      echo "**$v refused some requests**: the limits are not high enough for this load, and its figures are not of the admitted path."
    fi
  done
}

# Where each variant's CPU or allocation went over its profiled runs, per request.
profile_report() {
  local v requests cpu_us lines mode=cpu unit="µs" format="%+.1f | %+.2f | %+.2f | %+.2f | %+.2f"
  local -A split=()
  echo
  if [[ $PROFILE == alloc ]]; then
    mode=alloc unit="bytes" format="%+.0f | %+.0f | %+.0f | %+.0f | %+.0f"
    echo "Where the allocation went (async-profiler, a sample per 256 bytes allocated in every measured run; bytes per request):"
    echo
    echo "| variant | allocated | the limiter's own frames | Tomcat's encoding of the response fields | rest of the request threads | everything else |"
  else
    echo "Where the CPU went (async-profiler, CPU-time samples of every measured run; µs per request):"
    echo
    echo "| variant | CPU | the limiter's own frames | socket writes | rest of the request threads | everything else (JIT, GC, Tomcat's poller) |"
  fi
  echo "|---|---|---|---|---|---|"
  for v in "${variants[@]}"; do
    requests=$(column_of "$v" 11 | awk '{ s += $1 } END { print s + 0 }')
    cpu_us=$(paste <(column_of "$v" 9) <(column_of "$v" 11) | awk '{ c += $1 * $2; n += $2 } END { print (n > 0) ? c / n : 0 }')
    rm -f "$OUT_DIR/$v.own-frames.txt"
    lines=$(awk -v variant="$v" -v requests="$requests" -v cpu_us="$cpu_us" -v mode="$mode" -f scripts/load-test/profile.awk \
      "$OUT_DIR/$v".round*.collapsed) || continue
    split[$v]=$(head -n 1 <<<"$lines")
    awk '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' <<<"${split[$v]}"
    tail -n +2 <<<"$lines" >"$OUT_DIR/$v.own-frames.txt"
  done
  local on off
  for on in minimal-enabled enabled; do
    off=${on/enabled/disabled}
    [[ -n ${split[$on]:-} && -n ${split[$off]:-} ]] || continue
    printf '%s\n%s\n' "${split[$on]}" "${split[$off]}" | awk -v label="$on − $off" -v format="$format" '
      NR == 1 { for (i = 2; i <= 6; i++) on[i] = $i }
      NR == 2 { printf "| %s | " format " |\n", label, on[2] - $2, on[3] - $3, on[4] - $4, on[5] - $5, on[6] - $6 }'
  done
  for v in "${variants[@]}"; do
    [[ -s $OUT_DIR/$v.own-frames.txt ]] || continue
    echo
    echo "The limiter's own frames in $v, by the call they were in ($unit per request):"
    echo
    sed 's/^/- /' "$OUT_DIR/$v.own-frames.txt"
  done
}

# --- the run ----------------------------------------------------------------------------

check_settings
ensure_wrk
command -v curl >/dev/null || fail "curl is not installed"
mkdir -p "$OUT_DIR"
build
prepare_profiler

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
rm -f "$OUT_DIR"/*.log "$OUT_DIR"/*.collapsed
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' round variant rps p50_ms p90_ms p99_ms non2xx_share \
  socket_errors cpu_us_per_request jit_ms requests fork bytes_per_request gc_ms >"$OUT_DIR/runs.tsv"
STILL_COMPILING=()
count=${#variants[@]}
round=0
for fork in $(seq 1 "$FORKS"); do
  log "fork $fork/$FORKS: starting ${variants[*]}"
  port=$BASE_PORT
  for v in "${variants[@]}"; do
    start_app "$v" "$port"
    port=$((port + 1))
  done
  for v in "${variants[@]}"; do
    wait_ready "$v"
  done
  for v in "${variants[@]}"; do
    check_app "$v"
  done

  for v in "${variants[@]}"; do
    log "warming up $v"
    warm_up "$v"
  done

  for fork_round in $(seq 1 "$ROUNDS"); do
    round=$((round + 1))
    for i in $(seq 0 $((count - 1))); do
      v=${variants[$(((i + fork_round - 1) % count))]}
      log "fork $fork/$FORKS, round $fork_round/$ROUNDS: $v"
      pid=${pids[$v]}
      [[ $PROFILE == 1 ]] && profiler "$pid" "start,event=itimer,interval=1ms"
      # One sample per 256 bytes allocated, each counting the bytes it stands for.
      [[ $PROFILE == alloc ]] && profiler "$pid" "start,event=alloc,alloc=256,total"
      cpu_before=$(ticks "/proc/$pid/stat")
      jit_before=$(jit_ticks "$pid")
      eden_before=$(eden "$pid")
      drive "$v" "$DURATION"
      cpu_used=$(($(ticks "/proc/$pid/stat") - cpu_before))
      jit_used=$(($(jit_ticks "$pid") - jit_before))
      eden_after=$(eden "$pid")
      allocated_bytes=$(allocated "$eden_before" "$eden_after")
      gc_used=$(gc_millis "$eden_before" "$eden_after")
      [[ $PROFILE != 0 ]] && profiler "$pid" "stop,file=$(realpath -m "$OUT_DIR/$v.round$round.collapsed"),collapsed,total"
      read -r requests duration non2xx socket_errors p50 p90 p99 <<<"$RESULT"
      awk -v r="$round" -v v="$v" -v n="$requests" -v d="$duration" -v x="$non2xx" -v e="$socket_errors" \
        -v p50="$p50" -v p90="$p90" -v p99="$p99" -v cpu="$cpu_used" -v jit="$jit_used" -v hz="$CLK_TCK" -v f="$fork" \
        -v alloc="$allocated_bytes" -v gc="$gc_used" \
        'BEGIN { printf "%d\t%s\t%.1f\t%.3f\t%.3f\t%.3f\t%.5f\t%d\t%.1f\t%d\t%d\t%d\t%.0f\t%d\n", r, v, n / (d / 1e6), p50 / 1000,
          p90 / 1000, p99 / 1000, (n > 0) ? x / n : 0, e, (n > 0) ? cpu / hz * 1e6 / n : 0, (jit > 0 ? jit : 0) / hz * 1000, n, f,
          (n > 0 && alloc >= 0) ? alloc / n : -1, gc }' \
        >>"$OUT_DIR/runs.tsv"
    done
  done
  stop_apps
done

report | tee "$OUT_DIR/report.md"
log "runs: $OUT_DIR/runs.tsv; report: $OUT_DIR/report.md; logs: $OUT_DIR/*.log"
