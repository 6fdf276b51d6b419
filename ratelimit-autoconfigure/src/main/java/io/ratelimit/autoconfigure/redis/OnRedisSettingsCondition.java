package io.ratelimit.autoconfigure.redis;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Matches when {@code ratelimit.redis.enabled} is not {@code false} and the application says
 * where Redis is: a {@code spring.data.redis} url, host, port, sentinel, cluster or
 * master/replica setting (the last to refuse it with a reason rather than ignore it), or
 * a {@code DataRedisConnectionDetails} bean of its own, such as a service connection (with
 * {@code spring-boot-data-redis}). Redis's default address alone does not switch global
 * buckets on.
 */
class OnRedisSettingsCondition extends SpringBootCondition implements ConfigurationCondition {

	private static final String[] SETTINGS = { "spring.data.redis.url", "spring.data.redis.host",
			"spring.data.redis.port", "spring.data.redis.sentinel.master", "spring.data.redis.sentinel.nodes",
			"spring.data.redis.cluster.nodes", "spring.data.redis.masterreplica.nodes" };

	static final String CONNECTION_DETAILS = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

	private static final String PROPERTIES_DETAILS = "org.springframework.boot.data.redis.autoconfigure.PropertiesDataRedisConnectionDetails";

	@Override
	public ConfigurationPhase getConfigurationPhase() {
		return ConfigurationPhase.REGISTER_BEAN;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Environment environment = context.getEnvironment();
		if (!environment.getProperty("ratelimit.redis.enabled", Boolean.class, true)) {
			return ConditionOutcome.noMatch("ratelimit.redis.enabled is false");
		}
		for (String setting : SETTINGS) {
			if (environment.containsProperty(setting)) {
				return ConditionOutcome.match(setting + " is set");
			}
		}
		if (context.getBeanFactory() != null && anyDetailsBeyondProperties(context.getBeanFactory(),
				context.getClassLoader())) {
			return ConditionOutcome.match("found a DataRedisConnectionDetails bean beyond the properties");
		}
		return ConditionOutcome.noMatch("no spring.data.redis connection setting and no DataRedisConnectionDetails bean");
	}

	/**
	 * Whether connection details other than Spring Boot's own, which only mirror the
	 * {@code spring.data.redis.*} properties, say where Redis is (a service connection, for
	 * one). Spring Data Redis registers the mirror even when nothing is set.
	 */
	private static boolean anyDetailsBeyondProperties(ListableBeanFactory beans, @Nullable ClassLoader classLoader) {
		if (!ClassUtils.isPresent(CONNECTION_DETAILS, classLoader)) {
			return false;
		}
		Class<?> detailsType = ClassUtils.resolveClassName(CONNECTION_DETAILS, classLoader);
		for (String name : beans.getBeanNamesForType(detailsType, true, false)) {
			Class<?> type = beans.getType(name, false);
			if (type == null || !PROPERTIES_DETAILS.equals(type.getName())) {
				return true;
			}
		}
		return false;
	}

}
