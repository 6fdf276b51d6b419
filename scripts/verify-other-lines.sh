#!/usr/bin/env bash
# The test suite on the lines the starter supports besides the default one (Spring Boot
# 4.1 on Java 17, which `./mvnw verify` tests, every module): CI runs this after it.
#
# - Spring Boot 4.0 on Java 17, Spring Boot 4.1 on Java 25 (and, wiring tests only, Spring
#   Boot 4.0 on Java 25): the modules whose behaviour depends on the Spring Boot line or the
#   JDK, with what they
#   build on: ratelimit-core, ratelimit-autoconfigure (the wiring, every end-to-end test),
#   ratelimit-security-tests (Spring Security's filter chain) and sample-app (the adversarial
#   suite), which brings ratelimit-client (its Spring and Lettuce adapters). The benchmarks and the peer application are only compiled by the build, and are
#   compiled on the default line.
#
# Java 25 is taken from JDK25_HOME, else /usr/lib/jvm/temurin-25-jdk-amd64; Java 17 from
# JDK17_HOME, else JAVA_HOME, else the java on the PATH. Arguments are passed to every
# Maven run (e.g. -Dmaven.repo.local=...).
set -euo pipefail
cd "$(dirname "$0")/.."

jdk25=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
jdk17=${JDK17_HOME:-${JAVA_HOME:-}}
if [[ ! -x "$jdk25/bin/java" ]]; then
  echo "No Java 25 at $jdk25: set JDK25_HOME to a JDK 25 (./mvnw verify alone tests the default line)" >&2
  exit 1
fi

line_modules=ratelimit-core,ratelimit-autoconfigure,ratelimit-security-tests,sample-app

run() {
  local label=$1 java_home=$2
  shift 2
  echo "=== $label"
  local start=$SECONDS
  if [[ -n "$java_home" ]]; then
    JAVA_HOME="$java_home" ./mvnw -B "$@"
  else
    ./mvnw -B "$@"
  fi
  echo "=== $label: passed in $((SECONDS - start)) s"
}

# Each line starts clean: the compiler keeps classes it thinks up to date, and each line
# must compile (and run the annotation processors) on its own Spring Boot and JDK. The
# scaling experiment on Sentinel and Cluster (tag "topologies", about 45 s) measures
# admission, which does not depend on the line: it runs on the default line only; the
# topologies' own tests (failover, TLS, ACL) run on every line.
run "Spring Boot 4.0, Java 17" "$jdk17" -Pboot-4.0 -pl "$line_modules" -am clean verify -DexcludedGroups=topologies "$@"
run "Spring Boot 4.1, Java 25" "$jdk25" -pl "$line_modules" -am clean verify -DexcludedGroups=topologies "$@"
# Spring Boot 4.0 on Java 25 adds the combination of the two: every module compiled on it,
# and the wiring tests (the auto-configurations, Spring Security's filter chain) run. The
# whole suites ran on Spring Boot 4.0 (Java 17) and on Java 25 (Spring Boot 4.1) above, and
# a third whole run would keep CI over its half hour.
run "Spring Boot 4.0, Java 25" "$jdk25" -Pboot-4.0 -pl "$line_modules" -am clean verify -DexcludedGroups=topologies \
  -Dtest='*AutoConfigurationTest,*WithSecurityTest' -Dsurefire.failIfNoSpecifiedTests=false "$@"
