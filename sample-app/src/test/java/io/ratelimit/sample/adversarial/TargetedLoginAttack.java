package io.ratelimit.sample.adversarial;

import java.time.Duration;

/**
 * The targeted-lockout scenario (A1), the same for every bucketing under test: for five
 * simulated minutes an attacker guesses the victim's password four times a second, each
 * guess from the next of 256 addresses, while the victim logs in with the right password
 * from its own address every 15 seconds (below its address's budget of one login every
 * 12 seconds). Within a step of the clock the attacker's guess comes first, as it does
 * against a victim who retries at human speed.
 */
final class TargetedLoginAttack {

	static final String VICTIM = "alice";

	static final String VICTIM_PASSWORD = "wonderland";

	static final String VICTIM_ADDRESS = "203.0.113.10";

	static final Duration DURATION = Duration.ofMinutes(5);

	static final Duration STEP = Duration.ofMillis(250);

	/** The victim tries every 60th step: every 15 seconds. */
	static final int VICTIM_EVERY_STEPS = 60;

	static final int ATTACKER_ADDRESSES = 256;

	private TargetedLoginAttack() {
	}

	/**
	 * One login attempt against the system under test.
	 */
	@FunctionalInterface
	interface LoginTarget {

		/**
		 * @return whether the limiter let the attempt through to the application
		 */
		boolean attempt(String username, String password, String clientAddress);

	}

	static String attackerAddress(int i) {
		int n = i % ATTACKER_ADDRESSES;
		return "198.18." + (n / 250) + "." + (n % 250 + 1);
	}

	static Result run(LoginTarget target, FakeClock clock) {
		int steps = (int) (DURATION.toMillis() / STEP.toMillis());
		int attackerAdmitted = 0;
		int victimAttempts = 0;
		int victimAdmitted = 0;
		for (int step = 0; step < steps; step++) {
			attackerAdmitted += target.attempt(VICTIM, "guess-" + step, attackerAddress(step)) ? 1 : 0;
			if (step % VICTIM_EVERY_STEPS == VICTIM_EVERY_STEPS / 2) {
				victimAttempts++;
				victimAdmitted += target.attempt(VICTIM, VICTIM_PASSWORD, VICTIM_ADDRESS) ? 1 : 0;
			}
			clock.advance(STEP);
		}
		return new Result(steps, attackerAdmitted, victimAttempts, victimAdmitted);
	}

	/**
	 * The bound a bucket of the victim's account puts on admitted attempts: its capacity
	 * plus what it refills over the attack.
	 * @param rps the login policy's rate
	 * @param capacity the bucket's capacity in attempts
	 * @return the most attempts, of anyone, a per-account bucket may admit
	 */
	static long accountBound(double rps, long capacity) {
		return capacity + (long) Math.floor(rps * DURATION.toSeconds());
	}

	record Result(int attackerAttempts, int attackerAdmitted, int victimAttempts, int victimAdmitted) {

		double victimSuccessRate() {
			return (double) this.victimAdmitted / this.victimAttempts;
		}

		String describe() {
			return String.format(java.util.Locale.ROOT,
					"victim admitted %d/%d (%.0f%%), attacker guesses on the victim's account admitted %d/%d",
					this.victimAdmitted, this.victimAttempts, 100 * victimSuccessRate(), this.attackerAdmitted,
					this.attackerAttempts);
		}

	}

}
