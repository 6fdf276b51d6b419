/**
 * Wiring of the load-shedding stage: its properties, the shedder the filter consults
 * before identity work, its meters and its health.
 */
@NullMarked
package io.ratelimit.autoconfigure.shed;

import org.jspecify.annotations.NullMarked;
