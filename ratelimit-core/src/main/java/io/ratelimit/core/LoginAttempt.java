package io.ratelimit.core;

import java.util.concurrent.atomic.AtomicBoolean;

import io.ratelimit.core.bucket.BucketKey;
import io.ratelimit.core.bucket.BucketLimits;
import io.ratelimit.core.bucket.BucketStore;
import io.ratelimit.core.identity.DeviceTokens;
import org.jspecify.annotations.Nullable;

/**
 * An admitted request to a sensitive endpoint whose outcome the application has yet to
 * tell. Every attempt is charged to the account's bucket (or its trusted device's) when it
 * is admitted; a successful one is refunded, so only failed attempts spend the budget that
 * guessing spends, and a user who logs in correctly does not. The client's own bucket keeps
 * the charge either way. A success also earns a device token when trusted devices are on
 * and the attempt did not already come from one of the account's devices.
 * <p>
 * Completed once; later calls do nothing. Never shows the account.
 */
public final class LoginAttempt {

	private final BucketStore store;

	private final BucketKey accountBucket;

	private final BucketLimits limits;

	private final int weight;

	private final String account;

	private final @Nullable DeviceTokens newDeviceTokens;

	private final AtomicBoolean completed = new AtomicBoolean();

	LoginAttempt(BucketStore store, BucketKey accountBucket, BucketLimits limits, int weight, String account,
			@Nullable DeviceTokens newDeviceTokens) {
		this.store = store;
		this.accountBucket = accountBucket;
		this.limits = limits;
		this.weight = weight;
		this.account = account;
		this.newDeviceTokens = newDeviceTokens;
	}

	/**
	 * Returns whether a success would earn a device token, so that a web integration holds
	 * the response back for its headers only when one may be due.
	 * @return whether trusted devices are on and the attempt came from no device of the
	 * account
	 */
	public boolean earnsDeviceToken() {
		return this.newDeviceTokens != null;
	}

	/**
	 * Records the application's answer to the attempt.
	 * @param succeeded whether the application accepted it (a successful login)
	 * @return the device token to hand the client, or {@code null} if none is due: the
	 * attempt failed, trusted devices are off, or it came from a device of the account
	 */
	public @Nullable String complete(boolean succeeded) {
		if (!succeeded || !this.completed.compareAndSet(false, true)) {
			return null;
		}
		this.store.refund(this.accountBucket, this.limits, this.weight);
		return (this.newDeviceTokens != null) ? this.newDeviceTokens.issue(this.account) : null;
	}

	/**
	 * Records the application's answer to the attempt when no token could reach the
	 * client any more (its response went out before the outcome was known, as for an
	 * asynchronous handler): a success is refunded, and earns nothing.
	 * @param succeeded whether the application accepted it
	 */
	public void completeWithoutToken(boolean succeeded) {
		if (succeeded && this.completed.compareAndSet(false, true)) {
			this.store.refund(this.accountBucket, this.limits, this.weight);
		}
	}

	/**
	 * Never shows the account.
	 */
	@Override
	public String toString() {
		return "LoginAttempt[completed=" + this.completed.get() + "]";
	}

}
