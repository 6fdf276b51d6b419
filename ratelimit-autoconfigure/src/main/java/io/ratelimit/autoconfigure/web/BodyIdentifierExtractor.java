package io.ratelimit.autoconfigure.web;

import java.io.IOException;
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
 * application reads the same parsed parameters, so the limiter reads what it reads.
 */
public class BodyIdentifierExtractor implements IdentifierExtractor {

	private static final String FORM = "application/x-www-form-urlencoded";

	private static final String MULTIPART = "multipart/form-data";

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
		if (!isForm(servletRequest.getContentType())) {
			CachedBodyRequest cached = (servletRequest instanceof CachedBodyRequest body) ? body : null;
			try {
				byte[] body = (cached != null) ? cached.body(this.maxBodyBytes) : null;
				if (body == null || !fromJson(body, names)) {
					return SubmittedIdentifier.UNREADABLE;
				}
			}
			catch (IOException | JacksonException ex) {
				// Malformed JSON, too deep, or a client gone mid-body: unreadable, still charged.
				return SubmittedIdentifier.UNREADABLE;
			}
		}
		return SubmittedIdentifier.ofAll(names, this.normalization);
	}

	private static boolean isForm(@Nullable String contentType) {
		return contentType != null && (contentType.regionMatches(true, 0, FORM, 0, FORM.length())
				|| contentType.regionMatches(true, 0, MULTIPART, 0, MULTIPART.length()));
	}

	/**
	 * Adds the values of the field in a JSON object to the names.
	 * @return whether the body is one whole JSON object whose field, if present, is a
	 * string or number
	 */
	private boolean fromJson(byte[] body, List<String> names) {
		try (JsonParser parser = this.json.createParser(ObjectReadContext.empty(), body)) {
			if (parser.nextToken() != JsonToken.START_OBJECT) {
				return false;
			}
			while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
				boolean wanted = this.field.equals(parser.currentName());
				JsonToken token = parser.nextToken();
				if (!wanted) {
					parser.skipChildren();
				}
				else if (token == JsonToken.VALUE_STRING || token.isNumeric()) {
					names.add(parser.getString());
				}
				else {
					return false;
				}
			}
			// Read to the end: a truncated or trailing-garbage body is not a login we understood.
			return parser.currentToken() == JsonToken.END_OBJECT && parser.nextToken() == null;
		}
	}

}
