/**
 * Policy changes pushed by PostgreSQL as they commit ({@code LISTEN/NOTIFY}), so every
 * replica reloads within a moment instead of at its next periodic refresh.
 */
@NullMarked
package io.ratelimit.autoconfigure.notify;

import org.jspecify.annotations.NullMarked;
