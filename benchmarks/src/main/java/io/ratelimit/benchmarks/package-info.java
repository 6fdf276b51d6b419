/**
 * JMH microbenchmarks of the limiter, one class per stage of the pipeline plus the whole
 * decision and the servlet filter. Every class states its workload and the command that
 * runs it; {@code docs/benchmarks.md} has the figures.
 */
package io.ratelimit.benchmarks;
