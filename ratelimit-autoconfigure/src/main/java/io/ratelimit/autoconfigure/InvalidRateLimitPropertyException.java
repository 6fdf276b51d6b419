package io.ratelimit.autoconfigure;

import java.util.function.Supplier;

/**
 * A {@code ratelimit.*} property whose value cannot work. Thrown at startup and explained
 * by {@link InvalidRateLimitPropertyFailureAnalyzer}, which names the property to fix.
 */
public class InvalidRateLimitPropertyException extends IllegalArgumentException {

	private final String property;

	private final String reason;

	/**
	 * Creates an exception.
	 * @param property the full property name
	 * @param reason what is wrong with its value, without echoing secrets
	 * @param cause the underlying failure
	 */
	public InvalidRateLimitPropertyException(String property, String reason, Throwable cause) {
		super("Invalid value for '" + property + "': " + reason, cause);
		this.property = property;
		this.reason = reason;
	}

	/**
	 * Creates an exception for a value that is missing or wrong in itself.
	 * @param property the full property name
	 * @param reason what is wrong with its value, without echoing secrets
	 */
	public InvalidRateLimitPropertyException(String property, String reason) {
		super("Invalid value for '" + property + "': " + reason);
		this.property = property;
		this.reason = reason;
	}

	/**
	 * Returns the value a setting builds, turning a failure into an exception that names the
	 * property.
	 * @param <T> the type built
	 * @param property the full property name
	 * @param build builds the value; throws {@link IllegalArgumentException} if it is wrong
	 * @return the built value
	 */
	public static <T> T check(String property, Supplier<T> build) {
		try {
			return build.get();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitPropertyException(property, ex.getMessage(), ex);
		}
	}

	public String getProperty() {
		return this.property;
	}

	public String getReason() {
		return this.reason;
	}

}
