/**
 * Stage four of the pipeline: token buckets. Keys are keyed hashes of (endpoint, identity);
 * stores are bounded so that invented identities cannot grow memory.
 */
@NullMarked
package io.ratelimit.core.bucket;

import org.jspecify.annotations.NullMarked;
