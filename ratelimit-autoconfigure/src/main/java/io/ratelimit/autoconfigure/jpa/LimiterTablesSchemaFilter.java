package io.ratelimit.autoconfigure.jpa;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.hibernate.boot.model.relational.Namespace;
import org.hibernate.boot.model.relational.Sequence;
import org.hibernate.cfg.SchemaToolingSettings;
import org.hibernate.mapping.Table;
import org.hibernate.tool.schema.spi.SchemaFilter;
import org.hibernate.tool.schema.spi.SchemaFilterProvider;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.util.ClassUtils;

/**
 * Keeps Hibernate's schema tooling ({@code spring.jpa.hibernate.ddl-auto}: create,
 * create-drop, update, validate) away from the limiter's tables, which the limiter's own
 * migrations make. On an embedded database without migrations of the application's own,
 * Spring Boot has Hibernate create every entity's table: the limiter's would be dropped and
 * made again from its entities, without the migrations' defaults, identity columns, checks
 * and decimal places (an insert without an id fails, and "5 per minute", 0.083333, becomes
 * 0.08). The application's own tables are left to whatever filter it set, or to none.
 */
final class LimiterTablesSchemaFilter implements SchemaFilter, SchemaFilterProvider {

	/** The tables of the limiter's entities, in lower case. */
	static final Set<String> TABLES = Set.of("rate_limit_policy", "rate_limit_api_key", "rate_limit_tenant_plan");

	private final @Nullable SchemaFilterProvider application;

	private LimiterTablesSchemaFilter(@Nullable SchemaFilterProvider application) {
		this.application = application;
	}

	/**
	 * Sets the filter among Hibernate's properties, around the application's own if it set
	 * one (an instance, a class or a class name).
	 * @param properties the properties Hibernate is configured with
	 */
	static void install(Map<String, Object> properties) {
		Object own = properties.get(SchemaToolingSettings.HBM2DDL_FILTER_PROVIDER);
		properties.put(SchemaToolingSettings.HBM2DDL_FILTER_PROVIDER, new LimiterTablesSchemaFilter(provider(own)));
	}

	private static @Nullable SchemaFilterProvider provider(@Nullable Object setting) {
		if (setting == null || setting instanceof SchemaFilterProvider) {
			return (SchemaFilterProvider) setting;
		}
		Class<?> type = (setting instanceof Class<?> given) ? given
				: ClassUtils.resolveClassName(setting.toString().strip(), LimiterTablesSchemaFilter.class.getClassLoader());
		return (SchemaFilterProvider) BeanUtils.instantiateClass(type);
	}

	@Override
	public boolean includeNamespace(Namespace namespace) {
		return true;
	}

	@Override
	public boolean includeTable(Table table) {
		return !TABLES.contains(table.getName().toLowerCase(Locale.ROOT));
	}

	@Override
	public boolean includeSequence(Sequence sequence) {
		return true;
	}

	@Override
	public SchemaFilter getCreateFilter() {
		return and((this.application != null) ? this.application.getCreateFilter() : null);
	}

	@Override
	public SchemaFilter getDropFilter() {
		return and((this.application != null) ? this.application.getDropFilter() : null);
	}

	@Override
	public SchemaFilter getTruncatorFilter() {
		return and((this.application != null) ? this.application.getTruncatorFilter() : null);
	}

	@Override
	public SchemaFilter getMigrateFilter() {
		return and((this.application != null) ? this.application.getMigrateFilter() : null);
	}

	@Override
	public SchemaFilter getValidateFilter() {
		return and((this.application != null) ? this.application.getValidateFilter() : null);
	}

	private SchemaFilter and(@Nullable SchemaFilter other) {
		if (other == null) {
			return this;
		}
		return new SchemaFilter() {

			@Override
			public boolean includeNamespace(Namespace namespace) {
				return other.includeNamespace(namespace);
			}

			@Override
			public boolean includeTable(Table table) {
				return LimiterTablesSchemaFilter.this.includeTable(table) && other.includeTable(table);
			}

			@Override
			public boolean includeSequence(Sequence sequence) {
				return other.includeSequence(sequence);
			}

		};
	}

}
