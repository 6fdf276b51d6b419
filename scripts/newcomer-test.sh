#!/usr/bin/env bash
# The newcomer test: a blank Spring Boot web application (newcomer-app/) with only what the
# README's "Add it to your application" lists, built against the starter as installed from
# this checkout, started on PostgreSQL and on H2. On each it must answer a request with the
# RateLimit fields of its policy and a 429 once that policy's tokens are spent. It catches
# what the build's own test class paths hide: a dependency the starter needs and does not
# bring. CI runs it after `./mvnw verify`.
#
# The starter is installed into a Maven repository of the test's own (target/newcomer/
# repository) that falls back to the usual local repository for everything else, so that
# another checkout installing the same snapshot version meanwhile changes nothing here.
#
# PostgreSQL: from RATELIMIT_TEST_POSTGRES_URL (a JDBC URL of a database the user may
# create databases from), RATELIMIT_TEST_POSTGRES_USER and RATELIMIT_TEST_POSTGRES_PASSWORD,
# as for the build's tests, else 127.0.0.1:5432 as user postgres. The test creates a
# database of its own and drops it afterwards; it needs psql. Arguments are passed to every
# Maven run (e.g. -o).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

work=$root/target/newcomer
repository=$work/repository
local_repository=${NEWCOMER_LOCAL_REPOSITORY:-$HOME/.m2/repository}
maven=(./mvnw -B -q "-Dmaven.repo.local=$repository" "-Dmaven.repo.local.tail=$local_repository" "$@")

for tool in psql curl java; do
  command -v "$tool" >/dev/null || { echo "newcomer test: needs $tool on the PATH" >&2; exit 1; }
done

version=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -1)
boot=$(sed -n 's:.*<spring-boot.version>\(.*\)</spring-boot.version>.*:\1:p' pom.xml | head -1)
app_boot=$(sed -n '/<parent>/,/<\/parent>/s:.*<version>\(.*\)</version>.*:\1:p' newcomer-app/pom.xml)
if [[ "$app_boot" != "$boot" ]]; then
  echo "newcomer-app/pom.xml is on Spring Boot $app_boot, the build on $boot: set its parent's version to $boot" >&2
  exit 1
fi

pg_url=${RATELIMIT_TEST_POSTGRES_URL:-jdbc:postgresql://127.0.0.1:5432/postgres}
export PGUSER=${RATELIMIT_TEST_POSTGRES_USER:-postgres}
export PGPASSWORD=${RATELIMIT_TEST_POSTGRES_PASSWORD:-}
pg_base=${pg_url%%\?*}
pg_query=${pg_url#"$pg_base"}
database=newcomer_$(date +%s)_$$
app_pid=
app_log=

fail() {
  echo "newcomer test: $*" >&2
  if [[ -n "$app_log" && -f "$app_log" ]]; then
    echo "--- the application's log ($app_log), last lines:" >&2
    tail -n 40 "$app_log" >&2
  fi
  exit 1
}

psql_admin() {
  psql "${pg_url#jdbc:}" -v ON_ERROR_STOP=1 -qAt "$@"
}

stop_app() {
  if [[ -n "$app_pid" ]]; then
    kill "$app_pid" 2>/dev/null || true
    wait "$app_pid" 2>/dev/null || true
    app_pid=
  fi
}

cleanup() {
  stop_app
  psql_admin -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
# The database is dropped on Ctrl-C and kill too.
trap 'exit 130' INT TERM

start=$SECONDS
echo "=== newcomer test: installing ratelimit-starter $version"
"${maven[@]}" -DskipTests -pl ratelimit-starter -am install
echo "=== newcomer test: building the blank application on Spring Boot $boot"
rm -rf newcomer-app/target
"${maven[@]}" -f newcomer-app/pom.xml "-Dratelimit.version=$version" package
echo "built after $((SECONDS - start)) s"
jar=newcomer-app/target/newcomer-app-0.0.1-SNAPSHOT.jar

# Starts the application with the given arguments, and waits until it serves (or fails).
start_app() {
  local label=$1
  shift
  app_log=$work/$label.log
  # C1 only: the JVM starts faster, and this test measures nothing.
  java -XX:TieredStopAtLevel=1 -jar "$jar" --server.port=0 "$@" >"$app_log" 2>&1 &
  app_pid=$!
  local deadline=$((SECONDS + 120))
  port=
  while [[ -z "$port" ]]; do
    kill -0 "$app_pid" 2>/dev/null || fail "the application did not start on $label"
    ((SECONDS < deadline)) || fail "the application did not start on $label within 120 s"
    port=$(sed -n 's/.*Tomcat started on port \([0-9]*\).*/\1/p' "$app_log" | head -1)
    [[ -n "$port" ]] || sleep 0.2
  done
}

# Sends GET /hello; sets status and headers (lower-case names, no carriage returns).
request() {
  local response
  response=$(curl -s --max-time 10 -o /dev/null -D - "http://127.0.0.1:$port/hello") || fail "no answer from the application"
  response=$(tr -d '\r' <<<"$response")
  status=$(head -1 <<<"$response" | cut -d' ' -f2)
  headers=$(tail -n +2 <<<"$response" | sed 's/^\([^:]*\):/\L\1:/')
}

header() {
  sed -n "s/^$1: //p" <<<"$headers" | head -1
}

# Waits until GET /hello is charged to the expected policy, then spends its remaining
# tokens: each of those requests must pass with the RateLimit fields, the next one must be
# refused with 429 and Retry-After.
expect_limited_by() {
  local label=$1 policy=$2 deadline=$((SECONDS + 60))
  while :; do
    request
    [[ "$status" == 200 ]] || fail "$label: GET /hello answered $status before its policy applied"
    [[ "$(header ratelimit-policy)" == "$policy" ]] && break
    ((SECONDS < deadline)) || fail "$label: RateLimit-Policy is '$(header ratelimit-policy)', expected '$policy'"
    sleep 0.2
  done
  local name=${policy%%;*} remaining
  remaining=$(header ratelimit | sed -n 's/.*;r=\([0-9]*\).*/\1/p')
  [[ "$(header ratelimit)" == "$name;r=$remaining;"* ]] || fail "$label: RateLimit is '$(header ratelimit)'"
  for ((i = remaining; i > 0; i--)); do
    request
    [[ "$status" == 200 ]] || fail "$label: answered $status with $i tokens left"
    [[ "$(header ratelimit)" == "$name;r=$((i - 1));"* ]] || fail "$label: RateLimit is '$(header ratelimit)'"
  done
  request
  [[ "$status" == 429 ]] || fail "$label: answered $status once the policy's tokens were spent, expected 429"
  [[ -n "$(header retry-after)" ]] || fail "$label: a 429 without Retry-After"
  [[ "$(header ratelimit-policy)" == "$policy" ]] || fail "$label: the 429's RateLimit-Policy is '$(header ratelimit-policy)'"
  [[ "$(header ratelimit)" == "$name;r=0;"* ]] || fail "$label: the 429's RateLimit is '$(header ratelimit)'"
  echo "$label: charged to $policy, the $remaining requests it still allowed passed, the next got 429" \
    "(Retry-After: $(header retry-after)) after $((SECONDS - start)) s"
}

# The burst factor makes the policies' buckets hold 5 tokens that refill one per 20
# seconds, far slower than the test sends requests: each request leaves one token less.

echo "=== newcomer test: PostgreSQL (database $database)"
psql_admin -c "CREATE DATABASE $database" >/dev/null
app_url=${pg_base%/*}/$database$pg_query
start_app postgresql "--spring.datasource.url=$app_url" \
  "--spring.datasource.username=$PGUSER" "--spring.datasource.password=$PGPASSWORD" \
  --ratelimit.burst-factor=100
# A row added the way an operator adds one, while the application runs.
psql "${app_url#jdbc:}" -v ON_ERROR_STOP=1 -q \
  -c "INSERT INTO rate_limit_policy (endpoint, project_id, rps_limit) VALUES ('GET /hello', NULL, 0.05)"
expect_limited_by PostgreSQL '"GET /hello";q=5;w=100'
stop_app

echo "=== newcomer test: H2 (embedded)"
start_app h2 --ratelimit.burst-factor=100 --ratelimit.policy.default-rps=0.05
expect_limited_by H2 '"default";q=5;w=100'
stop_app

echo "=== newcomer test: passed in $((SECONDS - start)) s"
