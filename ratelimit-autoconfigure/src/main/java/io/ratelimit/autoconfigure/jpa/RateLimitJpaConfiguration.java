package io.ratelimit.autoconfigure.jpa;

import io.ratelimit.autoconfigure.migration.SchemaMigration;
import io.ratelimit.core.policy.PolicySource;
import jakarta.persistence.EntityManagerFactory;

import org.hibernate.tool.schema.spi.SchemaFilterProvider;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.jpa.repository.support.JpaRepositoryFactory;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Reads policies and API keys from the database with Spring Data JPA.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ EntityManagerFactory.class, JpaRepositoryFactory.class })
@ConditionalOnProperty(prefix = "ratelimit", name = "enabled", matchIfMissing = true)
public class RateLimitJpaConfiguration {

	@Bean
	static RateLimitManagedTypes rateLimitManagedTypes() {
		return new RateLimitManagedTypes();
	}

	@Bean
	@ConditionalOnBean({ EntityManagerFactory.class, PlatformTransactionManager.class })
	@ConditionalOnMissingBean(PolicySource.class)
	JpaPolicyStore rateLimitPolicyStore(EntityManagerFactory entityManagerFactory,
			PlatformTransactionManager transactionManager, ObjectProvider<SchemaMigration> migration) {
		TransactionTemplate readOnly = new TransactionTemplate(transactionManager);
		readOnly.setReadOnly(true);
		readOnly.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		return new JpaPolicyStore(SharedEntityManagerCreator.createSharedEntityManager(entityManagerFactory), readOnly,
				migration.getIfAvailable(() -> () -> {
				}));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ SchemaFilterProvider.class, HibernatePropertiesCustomizer.class })
	static class HibernateSchemaConfiguration {

		@Bean
		HibernatePropertiesCustomizer rateLimitTablesOutOfHibernateSchema() {
			return LimiterTablesSchemaFilter::install;
		}

	}

}
