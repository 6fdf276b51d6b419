package io.ratelimit.autoconfigure.web;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.identity.IdentifierExtractor;
import io.ratelimit.core.identity.IdentifierNormalization;
import io.ratelimit.core.identity.SubmittedIdentifier;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;

/**
 * Reads the account identifier of a login from its body: a top-level field of a JSON
 * object, or a parameter of a form; a query parameter of the same name counts too, since
 * an application may bind it from either. The body is read only up to a size limit, JSON
 * only to a nesting depth; anything oversized, malformed, missing or not a scalar is
 * {@link SubmittedIdentifier#UNREADABLE}, which never skips the check. The application
 * still receives the whole body.
 * <p>
 * An attempt that names the account more than once with different values (a repeated
 * JSON field or form parameter, the query and the body) is unreadable too: applications
 * differ in which value they read (Jackson the last JSON value, {@code getParameter} the
 * first, data binding all of them joined), so no single value can be charged safely.
 * <p>
 * Form parameters (url-encoded or multipart) are parsed by the servlet container, whatever the body's length or
 * transfer coding, up to the container's own limit ({@code maxPostSize}): the
 * application reads the same parsed parameters, so the limiter reads what it reads. Any
 * other body is read as JSON, and must hold the field itself; a query value of the field
 * only adds a name.
 */
public class BodyIdentifierExtractor implements IdentifierExtractor {

	private static final String FORM = "application/x-www-form-urlencoded";

	private static final String MULTIPART = "multipart/form-data";

	/** Digits, and places after the point, of the longest number read as an account id. */
	private static final int MAX_NUMBER_DIGITS = 64;

	private final String field;

	private final int maxBodyBytes;

	private final IdentifierNormalization normalization;

	private final JsonFactory json;

	/**
	 * Creates an extractor that lower-cases account names.
	 * @param field the JSON field or form parameter that names the account
	 * @param maxBodyBytes the most body bytes read
	 * @param maxJsonDepth the deepest JSON nesting read
	 */
	public BodyIdentifierExtractor(String field, int maxBodyBytes, int maxJsonDepth) {
		this(field, maxBodyBytes, maxJsonDepth, IdentifierNormalization.LOWER_CASE);
	}

	/**
	 * Creates an extractor.
	 * @param field the JSON field or form parameter that names the account
	 * @param maxBodyBytes the most body bytes read
	 * @param maxJsonDepth the deepest JSON nesting read
	 * @param normalization how spellings of one account name are made equal
	 */
	public BodyIdentifierExtractor(String field, int maxBodyBytes, int maxJsonDepth,
			IdentifierNormalization normalization) {
		this.field = field;
		this.maxBodyBytes = maxBodyBytes;
		this.normalization = normalization;
		this.json = JsonFactory.builder()
			.streamReadConstraints(StreamReadConstraints.builder()
				.maxNestingDepth(maxJsonDepth)
				.maxStringLength(maxBodyBytes)
				.build())
			.build();
	}

	@Override
	public SubmittedIdentifier extract(RateLimitRequest request) {
		HttpServletRequest servletRequest = request.unwrap(HttpServletRequest.class);
		if (servletRequest == null) {
			return SubmittedIdentifier.UNREADABLE;
		}
		// Of a form, the container's parameters hold the query's values and the body's; of
		// anything else, the query's alone (the body is left for the application).
		String[] parameters = servletRequest.getParameterValues(this.field);
		List<String> names = new ArrayList<>((parameters != null) ? Arrays.asList(parameters) : List.of());
		if (isParsedAsForm(servletRequest.getContentType())) {
			if (names.isEmpty() && servletRequest.getContentLengthLong() == 0) {
				return SubmittedIdentifier.ABSENT;
			}
			return SubmittedIdentifier.ofAll(names, this.normalization);
		}
		CachedBodyRequest cached = (servletRequest instanceof CachedBodyRequest body) ? body : null;
		try {
			byte[] body = (cached != null) ? cached.body(this.maxBodyBytes) : null;
			if (body != null && body.length == 0 && names.isEmpty()) {
				return SubmittedIdentifier.ABSENT;
			}
			// The body must name the account itself: a query value alone would be charged
			// while the application reads an account from the body under another spelling of
			// the field (an alias, another case) that the limiter does not know.
			if (body == null || !fromJson(body, names)) {
				return SubmittedIdentifier.UNREADABLE;
			}
		}
		catch (IOException | JacksonException ex) {
			// Malformed JSON, too deep, or a client gone mid-body: unreadable, still charged.
			return SubmittedIdentifier.UNREADABLE;
		}
		return SubmittedIdentifier.ofAll(names, this.normalization);
	}

	/**
	 * Returns whether the servlet container parses the body into parameters, by the exact
	 * comparison Tomcat makes (the type and subtype before any parameter, as sent). A media
	 * type that merely starts like a form ({@code application/x-www-form-urlencoded+json})
	 * is not parsed by the container, but may be read as JSON by the application, so it is
	 * read as JSON here too.
	 */
	private static boolean isParsedAsForm(@Nullable String contentType) {
		if (contentType == null) {
			return false;
		}
		int semicolon = contentType.indexOf(';');
		String type = ((semicolon < 0) ? contentType : contentType.substring(0, semicolon)).strip();
		return type.equals(FORM) || type.equals(MULTIPART);
	}

	/**
	 * Adds the values of the field in a JSON object to the names.
	 * @return whether the body is one whole JSON object that holds the field at least once,
	 * each time as a string or a number
	 */
	private boolean fromJson(byte[] body, List<String> names) throws IOException {
		try (JsonParser parser = this.json.createParser(ObjectReadContext.empty(), body)) {
			if (parser.nextToken() != JsonToken.START_OBJECT) {
				return false;
			}
			boolean found = false;
			while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
				boolean wanted = this.field.equals(parser.currentName());
				JsonToken token = parser.nextToken();
				if (!wanted) {
					parser.skipChildren();
					continue;
				}
				String value = (token == JsonToken.VALUE_STRING) ? parser.getString()
						: token.isNumeric() ? canonicalNumber(parser.getDecimalValue()) : null;
				if (value == null) {
					return false;
				}
				names.add(value);
				found = true;
			}
			// Read to the end: a truncated or trailing-garbage body is not a login we understood.
			return found && parser.currentToken() == JsonToken.END_OBJECT && parser.nextToken() == null;
		}
	}

	/**
	 * Returns one spelling of a number, so that {@code 1}, {@code 1.0} and {@code 10E-1},
	 * which an application binding a numeric account id reads alike, share a bucket; or
	 * {@code null} for numbers too large or too fine to be an account id.
	 */
	private static @Nullable String canonicalNumber(BigDecimal number) {
		BigDecimal stripped = number.stripTrailingZeros();
		if (stripped.precision() > MAX_NUMBER_DIGITS || Math.abs(stripped.scale()) > MAX_NUMBER_DIGITS) {
			return null;
		}
		return stripped.toPlainString();
	}

}
