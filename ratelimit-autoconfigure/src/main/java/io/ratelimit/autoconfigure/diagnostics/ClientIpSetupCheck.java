package io.ratelimit.autoconfigure.diagnostics;

import java.util.List;
import java.util.Locale;

import io.ratelimit.core.identity.ForwardingHeader;
import io.ratelimit.core.identity.IpRange;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.cloud.CloudPlatform;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Checks at startup how client addresses reach the limiter, and warns once per problem:
 * <ul>
 * <li>{@link Diagnostic#W002}: a trusted proxy range shorter than /8. Any peer inside it
 * may set the forwarding header, so clients there choose the address they are keyed by: a
 * fresh bucket per request, or someone else's bucket. /8 is also the IPv6 threshold, so
 * that the unique-local {@code fd00::/8} that proxies commonly use does not warn.</li>
 * <li>{@link Diagnostic#W003}: {@code server.forward-headers-strategy} is {@code native}
 * (or unset on a cloud platform where Spring Boot then acts as if it were), or
 * {@code framework}. Tomcat's {@code RemoteIpValve} and Spring's
 * {@code ForwardedHeaderFilter} replace the peer address before the limiter runs, by
 * rules weaker than its own: the valve accepts garbage and ports, the filter takes the
 * left-most, client-supplied value.</li>
 * </ul>
 */
public class ClientIpSetupCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(ClientIpSetupCheck.class);

	private static final String STRATEGY = "server.forward-headers-strategy";

	private final List<String> trustedProxies;

	private final ForwardingHeader header;

	private final Environment environment;

	/**
	 * Creates a check.
	 * @param trustedProxies the configured {@code ratelimit.client-ip.trusted-proxies}
	 * @param header the forwarding header read behind trusted proxies
	 * @param environment where {@code server.forward-headers-strategy} is read from
	 */
	public ClientIpSetupCheck(List<String> trustedProxies, ForwardingHeader header, Environment environment) {
		this.trustedProxies = List.copyOf(trustedProxies);
		this.header = header;
		this.environment = environment;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.trustedProxies.forEach(this::checkWidth);
		checkForwardHeadersStrategy();
	}

	private void checkWidth(String entry) {
		IpRange range;
		try {
			range = IpRange.parse(entry.strip());
		}
		catch (IllegalArgumentException ex) {
			// Refused at startup by the identity resolver, with a failure analysis.
			return;
		}
		int minimum = 8;
		if (range.prefixLength() >= minimum) {
			return;
		}
		logger.warn(Diagnostic.W002.message("ratelimit.client-ip.trusted-proxies contains '" + entry.strip()
				+ "' (" + range + "), a range wider than /" + minimum + ": any client with an address in it is "
				+ "believed when it sends " + this.header.headerName() + ", so it can pick the address it is limited by, "
				+ "taking a fresh bucket per request or draining another client's. List only your proxies' "
				+ "addresses or narrow ranges."));
	}

	private void checkForwardHeadersStrategy() {
		String strategy = Binder.get(this.environment).bind(STRATEGY, String.class).orElse(null);
		String normalized = (strategy != null) ? strategy.strip().toLowerCase(Locale.ROOT) : null;
		if ("native".equals(normalized)) {
			warnRewrite(STRATEGY + " is 'native'");
		}
		else if ("framework".equals(normalized)) {
			logger.warn(Diagnostic.W003.message(STRATEGY + " is 'framework': Spring's ForwardedHeaderFilter "
					+ "replaces the client address with the left-most value of the forwarding headers before the "
					+ "limiter runs, and that value is whatever the client sent, so clients choose their own "
					+ "bucket. " + advice()));
		}
		else if (normalized == null) {
			CloudPlatform platform = CloudPlatform.getActive(this.environment);
			if (platform != null && platform.isUsingForwardHeaders()) {
				warnRewrite(STRATEGY + " is not set, and on " + platform + " Spring Boot then acts as if it were "
						+ "'native'");
			}
		}
	}

	private void warnRewrite(String cause) {
		logger.warn(Diagnostic.W003.message(cause + ": the servlet container (Tomcat's RemoteIpValve) replaces "
				+ "the client address from X-Forwarded-For before the limiter runs, for any peer in private "
				+ "address ranges, accepting malformed values and ports, so the limiter cannot apply its own "
				+ "stricter resolution. " + advice()));
	}

	private static String advice() {
		return "Set " + STRATEGY + "=none and configure ratelimit.client-ip.trusted-proxies (and "
				+ "ratelimit.client-ip.header) instead.";
	}

}
