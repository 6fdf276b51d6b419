package io.ratelimit.autoconfigure.diagnostics;

import java.util.Objects;
import java.util.Set;

import io.ratelimit.core.endpoint.EndpointTemplate;
import io.ratelimit.core.policy.PolicySettings;
import io.ratelimit.core.policy.ReloadablePolicies;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Warns once at startup ({@link Diagnostic#W016}) for each template of a
 * {@code ratelimit.groups.<name>} group that the application does not serve. A group limit
 * counts the endpoints its group names and no others, so a misspelt template or a route
 * moved elsewhere leaves that endpoint outside the group's limit without a word. Checked
 * once the context is refreshed, when the application's routes are known.
 */
public class EndpointGroupsCheck implements ApplicationListener<ContextRefreshedEvent> {

	private static final Log logger = LogFactory.getLog(EndpointGroupsCheck.class);

	private final ReloadablePolicies policies;

	private volatile boolean checked;

	/**
	 * Creates a check.
	 * @param policies the policies whose groups and known endpoints are checked
	 */
	public EndpointGroupsCheck(ReloadablePolicies policies) {
		this.policies = Objects.requireNonNull(policies, "policies must not be null");
	}

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		if (this.checked) {
			return;
		}
		this.checked = true;
		PolicySettings settings = this.policies.settings();
		settings.groups().asMap().forEach((group, endpoints) -> warnUnserved(settings, group, endpoints));
	}

	private static void warnUnserved(PolicySettings settings, String group, Set<EndpointTemplate> endpoints) {
		for (EndpointTemplate endpoint : endpoints) {
			if (!settings.knownEndpoints().test(endpoint)) {
				logger.warn(Diagnostic.W016.message("ratelimit.groups." + group + " names '" + endpoint
						+ "', which no handler of the application serves, so limits on the group never count it. "
						+ "Name the method and template the route is served at (the 'ratelimit' Actuator "
						+ "endpoint explains which template a path is), or remove the entry."));
			}
		}
	}

}
