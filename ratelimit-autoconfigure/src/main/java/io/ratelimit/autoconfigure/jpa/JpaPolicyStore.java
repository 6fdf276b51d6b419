package io.ratelimit.autoconfigure.jpa;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.ratelimit.autoconfigure.migration.SchemaMigration;
import io.ratelimit.core.identity.ApiKey;
import io.ratelimit.core.identity.ApiKeySource;
import io.ratelimit.core.policy.PolicyRow;
import io.ratelimit.core.policy.PolicySource;
import jakarta.persistence.EntityManager;

import org.springframework.data.domain.Limit;
import org.springframework.data.jpa.repository.support.JpaRepositoryFactory;
import org.springframework.transaction.support.TransactionOperations;

/**
 * Reads policy rows, the tenants' plans and API keys with Spring Data JPA. The repositories are made here,
 * not found by scanning, so they work whatever repository scanning the application
 * configures for its own.
 */
public class JpaPolicyStore implements PolicySource, ApiKeySource {

	private final PolicyRowRepository policies;

	private final ApiKeyRepository apiKeys;

	private final TenantPlanRepository tenantPlans;

	private final TransactionOperations readOnly;

	private final SchemaMigration migration;

	/**
	 * Creates a store on a shared entity manager.
	 * @param entityManager the application's shared entity manager
	 * @param readOnly runs each read in a read-only transaction
	 * @param migration the schema migration still owed when the database was down at
	 * startup
	 */
	public JpaPolicyStore(EntityManager entityManager, TransactionOperations readOnly, SchemaMigration migration) {
		JpaRepositoryFactory factory = new JpaRepositoryFactory(entityManager);
		this.policies = factory.getRepository(PolicyRowRepository.class);
		this.apiKeys = factory.getRepository(ApiKeyRepository.class);
		this.tenantPlans = factory.getRepository(TenantPlanRepository.class);
		this.readOnly = readOnly;
		this.migration = migration;
	}

	@Override
	public List<PolicyRow> load() {
		List<PolicyRow> rows = new ArrayList<>();
		read(rows::add);
		return rows;
	}

	@Override
	public void read(Consumer<? super PolicyRow> reader) {
		this.migration.migrateIfPending();
		this.readOnly.executeWithoutResult((status) -> {
			try (Stream<Object[]> rows = this.policies.streamAllColumnsOrderById()) {
				rows.forEach((columns) -> reader.accept(toRow(columns)));
			}
		});
	}

	@Override
	public Map<String, String> loadTenantPlans() {
		this.migration.migrateIfPending();
		Map<String, String> plans = this.readOnly.execute((status) -> {
			Map<String, String> byTenant = new HashMap<>();
			this.tenantPlans.findAllProjectedBy().forEach((entry) -> byTenant.put(entry.getProjectId(), entry.getPlan()));
			return byTenant;
		});
		return (plans != null) ? plans : Map.of();
	}

	@Override
	public List<ApiKey> loadActive(int limit) {
		this.migration.migrateIfPending();
		List<ApiKey> keys = this.readOnly.execute((status) -> this.apiKeys.findActive(Limit.of(limit)));
		return (keys != null) ? keys : List.of();
	}

	private static PolicyRow toRow(Object[] columns) {
		return new PolicyRow(String.valueOf(columns[0]), (String) columns[1], (String) columns[2],
				(BigDecimal) columns[3], (String) columns[4], (String) columns[5], (String) columns[6],
				(String) columns[7], (String) columns[8], (Long) columns[9], (String) columns[10], (Long) columns[11],
				(String) columns[12], (String) columns[13]);
	}

}
