package io.ratelimit.core.bucket;

/**
 * A point-in-time view of a bucket store, for the admin endpoint and metrics.
 *
 * @param entries the buckets held now
 * @param evictions the buckets dropped since start, for size or idleness
 */
public record BucketStoreStats(long entries, long evictions) {
}
