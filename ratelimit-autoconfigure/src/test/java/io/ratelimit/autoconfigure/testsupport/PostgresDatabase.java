package io.ratelimit.autoconfigure.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.function.Consumer;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A PostgreSQL database of one test class. As a JUnit extension it drops itself when the
 * class's extension context closes, which is after Spring has closed the class's
 * application context.
 */
public final class PostgresDatabase implements BeforeAllCallback {

	private final String url;

	private final String user;

	private final String password;

	private final Runnable drop;

	private final Consumer<Boolean> availability;

	PostgresDatabase(String url, String user, String password, Runnable drop, Consumer<Boolean> availability) {
		this.url = url;
		this.user = user;
		this.password = password;
		this.drop = drop;
		this.availability = availability;
	}

	/**
	 * Takes the database down for the application: open connections are terminated and
	 * new ones refused, as in an outage, while the server stays up for everyone else.
	 */
	public void goDown() {
		this.availability.accept(false);
	}

	/**
	 * Ends an outage started by {@link #goDown()}.
	 */
	public void comeBack() {
		this.availability.accept(true);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		// Stores look up their parents, so @Nested classes find the outer class's entry and
		// the database lives until the outermost class is done.
		context.getStore(ExtensionContext.Namespace.create(PostgresDatabase.class))
			.getOrComputeIfAbsent(this.url, (url) -> (ExtensionContext.Store.CloseableResource) this.drop::run);
	}

	/**
	 * Points Spring Boot's data source at this database.
	 * @param registry the registry of a {@code @DynamicPropertySource} method
	 */
	public void register(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> this.url);
		registry.add("spring.datasource.username", () -> this.user);
		registry.add("spring.datasource.password", () -> this.password);
	}

	/**
	 * Opens a connection of its own, for statements a test runs beside the application.
	 * @return a new connection
	 * @throws SQLException if the database cannot be reached
	 */
	public Connection connect() throws SQLException {
		return DriverManager.getConnection(this.url, this.user, this.password);
	}

	public String url() {
		return this.url;
	}

	public String user() {
		return this.user;
	}

	public String password() {
		return this.password;
	}

}
