package io.ratelimit.autoconfigure.web;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.http.server.PathContainer;
import org.springframework.web.servlet.mvc.condition.PathPatternsRequestCondition;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The routes of one annotated handler mapping, indexed by the literal segments their path
 * patterns start with, so that most requests need to be matched against a few patterns,
 * not all of them. A snapshot: {@link #isCurrent} tells whether the mapping still has the
 * routes it was built from.
 * <p>
 * The index answers two questions exactly as Spring MVC's own lookup would, because that
 * lookup matches a pattern's literal segments against the path's segments one for one:
 * <ul>
 * <li>{@link #mayMatch}: {@code false} only when no pattern can match the path, so the
 * mapping would find no handler and raise no error (405, 415, ...) for any request with
 * this path;</li>
 * <li>{@link #matchesOnlyByMethodAndPath}: whether every route whose pattern matches the
 * path has no condition but its methods, so that the handler the mapping chooses for the
 * path depends on nothing but the method: no header, parameter, content type or API
 * version (with an API version strategy, no route qualifies: the version of every request
 * is checked).</li>
 * </ul>
 * A pattern that is not case-sensitive, or uses another separator than {@code /}, is
 * indexed under no segment and so always considered.
 */
final class RequestMappingIndex {

	/** Methods whose overriding would change how the mapping chooses a handler. */
	private static final Set<String> LOOKUP_METHODS = Set.of("getHandlerInternal", "lookupHandlerMethod",
			"getMatchingMapping", "getMappingComparator", "handleMatch", "handleNoMatch", "initLookupPath",
			"getDirectPaths", "getMappingPathPatterns");

	private final Set<RequestMappingInfo> infos;

	private final Node root = new Node();

	private RequestMappingIndex(Set<RequestMappingInfo> infos, boolean versioned) {
		this.infos = infos;
		for (RequestMappingInfo info : infos) {
			PathPatternsRequestCondition condition = info.getPathPatternsCondition();
			// With an API version strategy, every request's version decides too: an invalid one
			// is answered 400 by the lookup, whatever route the path matches.
			boolean conditioned = versioned || hasConditionsBeyondMethodAndPath(info);
			for (PathPattern pattern : condition.getPatterns()) {
				add(new Route(condition, conditioned), pattern);
			}
		}
	}

	/**
	 * Returns the index of a mapping's routes, if the mapping chooses handlers the way
	 * Spring MVC's annotated mappings do: path patterns, and none of the lookup overridden.
	 * @param mapping the handler mapping
	 * @return the index, or {@code null} if the mapping cannot be indexed
	 */
	static @Nullable RequestMappingIndex of(RequestMappingInfoHandlerMapping mapping) {
		if (!mapping.usesPathPatterns() || overridesLookup(mapping.getClass())) {
			return null;
		}
		Set<RequestMappingInfo> infos = mapping.getHandlerMethods().keySet();
		for (RequestMappingInfo info : infos) {
			if (info.getPathPatternsCondition() == null) {
				return null;
			}
		}
		return new RequestMappingIndex(infos, mapping.getApiVersionStrategy() != null);
	}

	/**
	 * Returns whether the mapping still has the routes this index was built from.
	 * @param mapping the mapping this index was built from
	 * @return whether the index is up to date
	 */
	boolean isCurrent(RequestMappingInfoHandlerMapping mapping) {
		return this.infos.equals(mapping.getHandlerMethods().keySet());
	}

	/**
	 * Returns whether some route's pattern may match the path.
	 * @param path the path within the application
	 * @return {@code false} if no route's pattern matches the path
	 */
	boolean mayMatch(PathContainer path) {
		Node node = this.root;
		if (!node.routes.isEmpty()) {
			return true;
		}
		for (PathContainer.Element element : path.elements()) {
			if (element instanceof PathContainer.PathSegment segment) {
				node = node.children.get(segment.valueToMatch());
				if (node == null) {
					return false;
				}
				if (!node.routes.isEmpty()) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Returns whether the routes whose patterns match the path, if any, have no condition
	 * beyond methods and path patterns.
	 * @param path the path within the application
	 * @return whether only the method decides among the routes that match the path
	 */
	boolean matchesOnlyByMethodAndPath(PathContainer path) {
		for (Route route : candidates(path)) {
			if (route.conditioned() && route.matches(path)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Returns whether no route's pattern matches the path, so that the mapping returns no
	 * handler for any request with this path.
	 * @param path the path within the application
	 * @return whether the path matches no route
	 */
	boolean matchesNothing(PathContainer path) {
		for (Route route : candidates(path)) {
			if (route.matches(path)) {
				return false;
			}
		}
		return true;
	}

	private List<Route> candidates(PathContainer path) {
		List<Route> candidates = new ArrayList<>(this.root.routes);
		Node node = this.root;
		for (PathContainer.Element element : path.elements()) {
			if (element instanceof PathContainer.PathSegment segment) {
				node = node.children.get(segment.valueToMatch());
				if (node == null) {
					break;
				}
				candidates.addAll(node.routes);
			}
		}
		return candidates;
	}

	private void add(Route route, PathPattern pattern) {
		Node node = this.root;
		String text = pattern.getPatternString();
		if (text.startsWith("/") && isCaseSensitiveWithSlashes(pattern)) {
			int start = 1;
			while (start < text.length()) {
				int end = text.indexOf('/', start);
				String segment = text.substring(start, (end < 0) ? text.length() : end);
				if (!isLiteral(segment)) {
					break;
				}
				node = node.children.computeIfAbsent(segment, (key) -> new Node());
				if (end < 0) {
					break;
				}
				start = end + 1;
			}
		}
		node.routes.add(route);
	}

	private static boolean isCaseSensitiveWithSlashes(PathPattern pattern) {
		try {
			// PathPattern.equals compares the separator and case sensitivity, which have no getters.
			return pattern.equals(PathPatternParser.defaultInstance.parse(pattern.getPatternString()));
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	/**
	 * Whether a pattern segment is plain text, compared with the path segment as it is: none
	 * of the characters that make a segment a variable, a wildcard or a regular expression.
	 */
	private static boolean isLiteral(String segment) {
		if (segment.isEmpty()) {
			return false;
		}
		for (int i = 0; i < segment.length(); i++) {
			char c = segment.charAt(i);
			boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
					|| c == '.' || c == '_' || c == '~';
			if (!plain) {
				return false;
			}
		}
		return true;
	}

	private static boolean hasConditionsBeyondMethodAndPath(RequestMappingInfo info) {
		return !info.getParamsCondition().isEmpty() || !info.getHeadersCondition().isEmpty()
				|| !info.getConsumesCondition().isEmpty() || !info.getProducesCondition().isEmpty()
				|| info.getVersionCondition().getVersion() != null || info.getCustomCondition() != null;
	}

	private static boolean overridesLookup(Class<?> type) {
		for (Class<?> current = type; current != RequestMappingInfoHandlerMapping.class; current = current
			.getSuperclass()) {
			for (Method method : current.getDeclaredMethods()) {
				if (LOOKUP_METHODS.contains(method.getName())) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * A route's path patterns, and whether it has conditions beyond methods and patterns.
	 */
	private record Route(PathPatternsRequestCondition patterns, boolean conditioned) {

		/** Matches the way {@link PathPatternsRequestCondition#getMatchingCondition} does. */
		boolean matches(PathContainer path) {
			for (PathPattern pattern : this.patterns.getPatterns()) {
				if (pattern.matches(path)) {
					return true;
				}
			}
			return false;
		}

	}

	private static final class Node {

		final Map<String, Node> children = new HashMap<>();

		final List<Route> routes = new ArrayList<>();

	}

}
