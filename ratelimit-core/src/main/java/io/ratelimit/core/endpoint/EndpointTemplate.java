package io.ratelimit.core.endpoint;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * An endpoint as the limiter charges it: an HTTP method and a path template whose variable
 * segments are {@code *}, rendered as {@code GET /api/users/*}. Two reserved values complete
 * the set: {@link #UNKNOWN} for every request the application does not serve, and
 * {@link #DEFAULT} for the policy that applies when an endpoint has none of its own.
 * <p>
 * Templates are values: equal text means the same endpoint, so renaming {@code {id}} to
 * {@code {userId}} in a mapping changes nothing. {@code HEAD} is charged as {@code GET},
 * because that is the handler that serves it.
 */
public final class EndpointTemplate {

	/** The endpoint of every request that matches no template of the application. */
	public static final EndpointTemplate UNKNOWN = new EndpointTemplate(null, null, "UNKNOWN");

	/**
	 * {@link #UNKNOWN} for a request that a handler serves although no template names it:
	 * static resources, catch-all routes such as a single-page application's {@code /**}
	 * fallback, methods a method-less mapping accepts. Equal to {@link #UNKNOWN} and charged
	 * exactly as it is; only rejecting unknown endpoints tells the two apart, since
	 * rejecting this one would refuse a request the application serves.
	 */
	public static final EndpointTemplate SERVED_UNKNOWN = new EndpointTemplate(null, null, "UNKNOWN");

	/** The endpoint name under which policies apply to every endpoint without their own. */
	public static final EndpointTemplate DEFAULT = new EndpointTemplate(null, null, "default");

	private static final int MAX_LENGTH = 1024;

	private final @Nullable String method;

	private final @Nullable String path;

	private final String value;

	private final int hash;

	private EndpointTemplate(@Nullable String method, @Nullable String path, String value) {
		this.method = method;
		this.path = path;
		this.value = value;
		this.hash = value.hashCode();
	}

	/**
	 * Returns the template for a method and an already normalized template path.
	 * {@code HEAD} becomes {@code GET}.
	 * @param method the HTTP method, upper case
	 * @param path the template path, e.g. {@code /api/users/*}
	 * @return the template
	 * @throws IllegalArgumentException if the method or path is malformed
	 */
	public static EndpointTemplate of(String method, String path) {
		Objects.requireNonNull(method, "method must not be null");
		Objects.requireNonNull(path, "path must not be null");
		String charged = "HEAD".equals(method) ? "GET" : method;
		String problem = TemplateSyntax.methodProblem(charged);
		if (problem == null) {
			problem = TemplateSyntax.pathProblem(path);
		}
		if (problem != null) {
			throw new IllegalArgumentException(
					"Invalid endpoint template '" + TemplateSyntax.printable(method + " " + path) + "': " + problem);
		}
		return new EndpointTemplate(charged, path, charged + " " + path);
	}

	/**
	 * Returns the template of a Spring style path pattern: {@code {id}} and
	 * {@code {id:\d+}} become {@code *}, {@code {*rest}} becomes {@code **}, and a literal
	 * character a template cannot hold becomes percent-escapes of its UTF-8 bytes
	 * ({@code /api/café} is {@code /api/caf%C3%A9}).
	 * @param method the HTTP method, upper case
	 * @param pattern the path pattern, e.g. {@code /api/users/{id}}
	 * @return the template
	 * @throws IllegalArgumentException if the method is malformed, or the pattern too long
	 * for a template once escaped
	 */
	public static EndpointTemplate fromPattern(String method, String pattern) {
		Objects.requireNonNull(pattern, "pattern must not be null");
		return of(method, PatternConversion.toTemplatePath(pattern));
	}

	/**
	 * Parses the text form used in policy rows: {@code GET /api/users/*}, {@code default}
	 * or {@code UNKNOWN}.
	 * @param text the text form
	 * @return the template
	 * @throws IllegalArgumentException naming the text and what is wrong with it
	 */
	public static EndpointTemplate parse(String text) {
		Objects.requireNonNull(text, "text must not be null");
		if (text.equals(UNKNOWN.value)) {
			return UNKNOWN;
		}
		if (text.equals(DEFAULT.value)) {
			return DEFAULT;
		}
		if (text.length() > MAX_LENGTH) {
			throw new IllegalArgumentException("Invalid endpoint template: longer than " + MAX_LENGTH + " characters");
		}
		int space = text.indexOf(' ');
		if (space < 0) {
			throw new IllegalArgumentException("Invalid endpoint template '" + TemplateSyntax.printable(text)
					+ "': expected 'METHOD /path', 'default' or 'UNKNOWN'");
		}
		String method = text.substring(0, space);
		if (method.equals("HEAD")) {
			throw new IllegalArgumentException("Invalid endpoint template '" + TemplateSyntax.printable(text)
					+ "': HEAD is charged as GET, so write 'GET" + TemplateSyntax.printable(text.substring(space)) + "'");
		}
		return of(method, text.substring(space + 1));
	}

	/**
	 * Returns the HTTP method.
	 * @return the method, or {@code null} for the reserved templates
	 */
	public @Nullable String method() {
		return this.method;
	}

	/**
	 * Returns the template path.
	 * @return the path, or {@code null} for the reserved templates
	 */
	public @Nullable String path() {
		return this.path;
	}

	/**
	 * Returns whether this is one of the reserved names {@link #UNKNOWN} and {@link #DEFAULT}.
	 * @return whether the template is reserved
	 */
	public boolean isReserved() {
		return this.method == null;
	}

	/**
	 * Returns whether this is {@link #UNKNOWN} or {@link #SERVED_UNKNOWN}.
	 * @return whether the request matched no template
	 */
	public boolean isUnknown() {
		return this == UNKNOWN || this == SERVED_UNKNOWN;
	}

	/**
	 * Returns whether this is {@link #UNKNOWN} for a request nothing serves, the only one
	 * an application may refuse without refusing something it serves.
	 * @return whether the request matched no template and no handler serves it
	 */
	public boolean isServedByNothing() {
		return this == UNKNOWN;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return this == other || (other instanceof EndpointTemplate template && this.value.equals(template.value));
	}

	@Override
	public int hashCode() {
		return this.hash;
	}

	/**
	 * Returns the text form, e.g. {@code GET /api/users/*}.
	 */
	@Override
	public String toString() {
		return this.value;
	}

}
