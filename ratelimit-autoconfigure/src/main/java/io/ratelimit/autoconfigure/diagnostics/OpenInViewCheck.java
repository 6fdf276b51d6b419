package io.ratelimit.autoconfigure.diagnostics;

import io.ratelimit.autoconfigure.jpa.model.PolicyRowEntity;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.metamodel.EntityType;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.env.Environment;
import org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor;

/**
 * Warns once at startup ({@link Diagnostic#W010}) when Spring Boot's open-in-view
 * interceptor opens a JPA {@code EntityManager} for every web request of an application
 * whose only entities are the limiter's. The starter brought JPA in for its own tables; an
 * application that never set {@code spring.jpa.open-in-view} then pays for an
 * {@code EntityManager} per request that nothing uses: 1.8 µs of CPU and about 3 KB of
 * allocation per request on the load test's minimal application, more than the limiter
 * itself. An application that sets the property, either way, has chosen and is not told.
 */
public class OpenInViewCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(OpenInViewCheck.class);

	static final String PROPERTY = "spring.jpa.open-in-view";

	private static final String LIMITER_ENTITIES = PolicyRowEntity.class.getPackageName();

	private final Environment environment;

	private final ObjectProvider<OpenEntityManagerInViewInterceptor> interceptors;

	private final ObjectProvider<EntityManagerFactory> entityManagerFactories;

	/**
	 * Creates a check.
	 * @param environment where {@code spring.jpa.open-in-view} is read from
	 * @param interceptors the open-in-view interceptor, if Spring Boot registered one
	 * @param entityManagerFactories the application's entity manager factory
	 */
	public OpenInViewCheck(Environment environment, ObjectProvider<OpenEntityManagerInViewInterceptor> interceptors,
			ObjectProvider<EntityManagerFactory> entityManagerFactories) {
		this.environment = environment;
		this.interceptors = interceptors;
		this.entityManagerFactories = entityManagerFactories;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.environment.containsProperty(PROPERTY) || this.interceptors.getIfAvailable() == null) {
			return;
		}
		EntityManagerFactory factory = this.entityManagerFactories.getIfUnique();
		if (factory != null && onlyLimiterEntities(factory)) {
			logger.warn(Diagnostic.W010.message("The application has no JPA entities of its own, but "
					+ PROPERTY + " is not set, so Spring Boot opens a JPA EntityManager for every web request "
					+ "that nothing uses (JPA came with the rate limiter's tables). Set " + PROPERTY
					+ "=false; it costs more per request than the limiter."));
		}
	}

	private static boolean onlyLimiterEntities(EntityManagerFactory factory) {
		for (EntityType<?> entity : factory.getMetamodel().getEntities()) {
			if (!entity.getJavaType().getPackageName().equals(LIMITER_ENTITIES)) {
				return false;
			}
		}
		return true;
	}

}
