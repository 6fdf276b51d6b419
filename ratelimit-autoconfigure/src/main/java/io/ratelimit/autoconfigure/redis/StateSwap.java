package io.ratelimit.autoconfigure.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * The compare-and-swap of a bucket's state in Redis that answers a lost swap with the state
 * that won.
 * <p>
 * Bucket4j's own script answers only "swapped" or "not swapped", and Bucket4j then reads
 * the state with a {@code GET} before it tries again: a lost swap costs two round trips.
 * This script does what Bucket4j's does (write the new state, with its expiry, only over
 * the bytes the caller computed from; create the key only if it is absent), and when the
 * bytes differ it returns the bytes it found, so the retry starts from them at once. The
 * token bucket stays Bucket4j's: the script compares and stores opaque bytes, as Bucket4j's
 * does.
 */
final class StateSwap {

	/**
	 * KEYS[1] the bucket; ARGV[1] the state computed from (empty: no bucket), ARGV[2] the
	 * new state, ARGV[3] its time to live in milliseconds (0: none). Answers {1} when
	 * swapped, {0} when another writer deleted the bucket or it expired, else {0, state}.
	 */
	private static final String SCRIPT = """
			local current = redis.call('get', KEYS[1])
			if (current == false and ARGV[1] == '') or current == ARGV[1] then
			  if ARGV[3] == '0' then
			    redis.call('set', KEYS[1], ARGV[2])
			  else
			    redis.call('set', KEYS[1], ARGV[2], 'px', ARGV[3])
			  end
			  return {1}
			end
			if current == false then
			  return {0}
			end
			return {0, current}
			""";

	private static final byte[] NO_STATE = new byte[0];

	private final RedisScriptingAsyncCommands<byte[], byte[]> scripts;

	StateSwap(RedisScriptingAsyncCommands<byte[], byte[]> scripts) {
		this.scripts = scripts;
	}

	/**
	 * Starts a swap.
	 * @param key the bucket's key
	 * @param original the state the new one was computed from, {@code null} if there was no
	 * bucket
	 * @param replacement the new state
	 * @param ttlMillis how long Redis keeps the new state, 0 or less for ever
	 * @param timeoutNanos when present, the answer fails with a timeout after this long
	 * @return the answer
	 */
	CompletableFuture<Answer> swap(byte[] key, byte @Nullable [] original, byte[] replacement, long ttlMillis,
			Optional<Long> timeoutNanos) {
		byte[] ttl = Long.toString(Math.max(ttlMillis, 0)).getBytes(StandardCharsets.US_ASCII);
		CompletableFuture<List<Object>> reply = this.scripts
			.<List<Object>>eval(SCRIPT, ScriptOutputType.MULTI, new byte[][] { key },
					(original != null) ? original : NO_STATE, replacement, ttl)
			.toCompletableFuture();
		if (timeoutNanos.isPresent()) {
			reply = reply.orTimeout(timeoutNanos.get(), TimeUnit.NANOSECONDS);
		}
		return reply.thenApply(StateSwap::answer);
	}

	/**
	 * Swaps and waits for the answer, failing as Bucket4j's own compare-and-swap fails.
	 * @param key the bucket's key
	 * @param original the state the new one was computed from, {@code null} if none
	 * @param replacement the new state
	 * @param ttlMillis how long Redis keeps the new state, 0 or less for ever
	 * @param timeoutNanos when present, the longest wait
	 * @return the answer
	 */
	Answer swapAndWait(byte[] key, byte @Nullable [] original, byte[] replacement, long ttlMillis,
			Optional<Long> timeoutNanos) {
		CompletableFuture<Answer> answer = swap(key, original, replacement, ttlMillis, Optional.empty());
		try {
			return timeoutNanos.isPresent() ? answer.get(timeoutNanos.get(), TimeUnit.NANOSECONDS) : answer.get();
		}
		catch (InterruptedException ex) {
			answer.cancel(true);
			Thread.currentThread().interrupt();
			throw new RedisException(ex);
		}
		catch (java.util.concurrent.TimeoutException ex) {
			throw new io.github.bucket4j.TimeoutException(
					"Violated timeout while waiting for redis future for " + timeoutNanos.get() + "ns",
					timeoutNanos.get(), timeoutNanos.get());
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RedisException redis) {
				throw redis;
			}
			throw new RedisException("Unexpected exception while processing command", ex.getCause());
		}
	}

	private static Answer answer(List<Object> reply) {
		boolean swapped = ((Long) reply.get(0)) == 1L;
		return new Answer(swapped, (reply.size() > 1) ? (byte[]) reply.get(1) : null);
	}

	/**
	 * What a swap answered.
	 * @param swapped whether the new state was written
	 * @param current when not swapped, the state found instead ({@code null}: no bucket)
	 */
	record Answer(boolean swapped, byte @Nullable [] current) {
	}

}
