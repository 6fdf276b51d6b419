package io.ratelimit.autoconfigure.jpa;

import java.util.HashMap;
import java.util.Map;

import org.hibernate.boot.model.relational.Namespace;
import org.hibernate.boot.model.relational.Sequence;
import org.hibernate.cfg.SchemaToolingSettings;
import org.hibernate.mapping.Table;
import org.hibernate.tool.schema.spi.SchemaFilter;
import org.hibernate.tool.schema.spi.SchemaFilterProvider;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter that keeps Hibernate's schema tooling off the limiter's tables, alone and
 * around a filter of the application's own.
 */
class LimiterTablesSchemaFilterTest {

	@Test
	void installWhenApplicationHasNoFilterThenOnlyTheLimitersTablesAreLeftOut() {
		SchemaFilterProvider provider = installed(new HashMap<>());

		for (SchemaFilter filter : filters(provider)) {
			assertThat(filter.includeTable(new Table("test", "RATE_LIMIT_POLICY"))).isFalse();
			assertThat(filter.includeTable(new Table("test", "rate_limit_tenant_plan"))).isFalse();
			assertThat(filter.includeTable(new Table("test", "widget"))).isTrue();
		}
	}

	@Test
	void installWhenApplicationNamesAFilterClassThenBothFiltersApply() {
		Map<String, Object> properties = new HashMap<>();
		properties.put(SchemaToolingSettings.HBM2DDL_FILTER_PROVIDER, NoLegacyTables.class.getName());

		SchemaFilterProvider provider = installed(properties);

		for (SchemaFilter filter : filters(provider)) {
			assertThat(filter.includeTable(new Table("test", "rate_limit_api_key"))).isFalse();
			assertThat(filter.includeTable(new Table("test", "legacy_orders"))).isFalse();
			assertThat(filter.includeTable(new Table("test", "widget"))).isTrue();
		}
	}

	private static SchemaFilterProvider installed(Map<String, Object> properties) {
		LimiterTablesSchemaFilter.install(properties);
		return (SchemaFilterProvider) properties.get(SchemaToolingSettings.HBM2DDL_FILTER_PROVIDER);
	}

	private static SchemaFilter[] filters(SchemaFilterProvider provider) {
		return new SchemaFilter[] { provider.getCreateFilter(), provider.getDropFilter(), provider.getMigrateFilter(),
				provider.getValidateFilter(), provider.getTruncatorFilter() };
	}

	/** An application's own filter: leaves out tables another tool owns. */
	public static class NoLegacyTables implements SchemaFilterProvider, SchemaFilter {

		@Override
		public boolean includeNamespace(Namespace namespace) {
			return true;
		}

		@Override
		public boolean includeTable(Table table) {
			return !table.getName().startsWith("legacy_");
		}

		@Override
		public boolean includeSequence(Sequence sequence) {
			return true;
		}

		@Override
		public SchemaFilter getCreateFilter() {
			return this;
		}

		@Override
		public SchemaFilter getDropFilter() {
			return this;
		}

		@Override
		public SchemaFilter getTruncatorFilter() {
			return this;
		}

		@Override
		public SchemaFilter getMigrateFilter() {
			return this;
		}

		@Override
		public SchemaFilter getValidateFilter() {
			return this;
		}

	}

}
