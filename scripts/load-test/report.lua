-- wrk script of scripts/load-test.sh: after a run, one line the harness parses.
-- Latencies are in microseconds, the duration too (wrk's own units).
done = function(summary, latency, requests)
  local socket_errors = summary.errors.connect + summary.errors.read
      + summary.errors.write + summary.errors.timeout
  io.write(string.format(
      "RESULT requests=%d duration_us=%d non2xx=%d socket_errors=%d p50_us=%d p90_us=%d p99_us=%d\n",
      summary.requests, summary.duration, summary.errors.status, socket_errors,
      latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
