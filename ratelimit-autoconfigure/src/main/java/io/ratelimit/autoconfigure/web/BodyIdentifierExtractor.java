package io.ratelimit.autoconfigure.web;

import java.io.IOException;

import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.identity.IdentifierExtractor;
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
 * object, or a parameter of a form. The body is read only up to a size limit, JSON only to
 * a nesting depth; anything oversized, malformed, missing or not a scalar is
 * {@link SubmittedIdentifier#UNREADABLE}, which never skips the check. The application
 * still receives the whole body.
 * <p>
 * Of a field given twice the last value counts, as Jackson gives the application the
 * last: charging the first would let {@code {"username":"x","username":"victim"}} guess
 * at the victim's password without touching the victim's bucket.
 */
public class BodyIdentifierExtractor implements IdentifierExtractor {

	private static final String FORM = "application/x-www-form-urlencoded";

	private final String field;

	private final int maxBodyBytes;

	private final JsonFactory json;

	/**
	 * Creates an extractor.
	 * @param field the JSON field or form parameter that names the account
	 * @param maxBodyBytes the most body bytes read
	 * @param maxJsonDepth the deepest JSON nesting read
	 */
	public BodyIdentifierExtractor(String field, int maxBodyBytes, int maxJsonDepth) {
		this.field = field;
		this.maxBodyBytes = maxBodyBytes;
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
		String contentType = servletRequest.getContentType();
		if (contentType != null && contentType.regionMatches(true, 0, FORM, 0, FORM.length())) {
			return fromForm(servletRequest);
		}
		CachedBodyRequest cached = (servletRequest instanceof CachedBodyRequest body) ? body : null;
		try {
			byte[] body = (cached != null) ? cached.body(this.maxBodyBytes) : null;
			return (body != null) ? SubmittedIdentifier.of(fromJson(body)) : SubmittedIdentifier.UNREADABLE;
		}
		catch (IOException | JacksonException ex) {
			// Malformed JSON, too deep, or a client gone mid-body: unreadable, still charged.
			return SubmittedIdentifier.UNREADABLE;
		}
	}

	/**
	 * Form parameters are parsed by the servlet container, which keeps them for the
	 * application too; the declared length bounds what it reads.
	 */
	private SubmittedIdentifier fromForm(HttpServletRequest request) {
		long length = request.getContentLengthLong();
		if (length < 0 || length > this.maxBodyBytes) {
			return SubmittedIdentifier.UNREADABLE;
		}
		String[] values = request.getParameterValues(this.field);
		return (values != null && values.length > 0) ? SubmittedIdentifier.of(values[values.length - 1])
				: SubmittedIdentifier.UNREADABLE;
	}

	private @Nullable String fromJson(byte[] body) {
		try (JsonParser parser = this.json.createParser(ObjectReadContext.empty(), body)) {
			if (parser.nextToken() != JsonToken.START_OBJECT) {
				return null;
			}
			String value = null;
			boolean scalar = true;
			while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
				boolean wanted = this.field.equals(parser.currentName());
				JsonToken token = parser.nextToken();
				if (token.isScalarValue()) {
					if (wanted) {
						value = (token == JsonToken.VALUE_NULL) ? null : parser.getString();
						scalar = true;
					}
				}
				else {
					if (wanted) {
						scalar = false;
					}
					parser.skipChildren();
				}
			}
			// Read to the end: a truncated or trailing-garbage body is not a login we understood.
			if (parser.currentToken() != JsonToken.END_OBJECT || parser.nextToken() != null) {
				return null;
			}
			return scalar ? value : null;
		}
	}

}
