/**
 * Stage two of the pipeline: who is asking. A verified bearer token, then a validated API
 * key, then the client network identity; nothing unverified is ever a primary key.
 */
@NullMarked
package io.ratelimit.core.identity;

import org.jspecify.annotations.NullMarked;
