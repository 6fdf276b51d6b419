package io.ratelimit.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a startup failure caused by a {@code ratelimit.*} property, and says which
 * property to change.
 */
class InvalidRateLimitPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRateLimitPropertyException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidRateLimitPropertyException cause) {
		return new FailureAnalysis("The rate limiter cannot start: " + cause.getMessage(),
				"Change the property '" + cause.getProperty() + "' in your configuration.", cause);
	}

}
