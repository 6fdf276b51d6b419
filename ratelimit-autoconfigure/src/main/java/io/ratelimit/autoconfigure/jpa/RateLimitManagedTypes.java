package io.ratelimit.autoconfigure.jpa;

import java.util.ArrayList;
import java.util.List;

import io.ratelimit.autoconfigure.jpa.model.ApiKeyEntity;
import io.ratelimit.autoconfigure.jpa.model.PolicyRowEntity;
import io.ratelimit.autoconfigure.jpa.model.TenantPlanEntity;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;

/**
 * Adds the limiter's entities to the application's persistence unit, whatever packages
 * the application scans (its own auto-configuration package or an {@code @EntityScan}).
 * Registering a package for entity scanning instead would replace the application's own
 * scanning, and its entities would silently disappear.
 */
public class RateLimitManagedTypes implements BeanPostProcessor {

	static final List<String> ENTITY_CLASSES = List.of(PolicyRowEntity.class.getName(), ApiKeyEntity.class.getName(),
			TenantPlanEntity.class.getName());

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof PersistenceManagedTypes types && !types.getManagedClassNames().containsAll(ENTITY_CLASSES)) {
			List<String> classes = new ArrayList<>(types.getManagedClassNames());
			ENTITY_CLASSES.stream().filter((name) -> !classes.contains(name)).forEach(classes::add);
			return new WithRateLimitEntities(types, classes);
		}
		return bean;
	}

	private record WithRateLimitEntities(PersistenceManagedTypes delegate,
			List<String> managedClassNames) implements PersistenceManagedTypes {

		@Override
		public List<String> getManagedClassNames() {
			return this.managedClassNames;
		}

		@Override
		public List<String> getManagedPackages() {
			return this.delegate.getManagedPackages();
		}

		@Override
		public java.net.URL getPersistenceUnitRootUrl() {
			return this.delegate.getPersistenceUnitRootUrl();
		}

	}

}
