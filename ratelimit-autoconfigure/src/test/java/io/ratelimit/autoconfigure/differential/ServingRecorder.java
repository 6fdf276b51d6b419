package io.ratelimit.autoconfigure.differential;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Records the handler that serves each request and the pattern Spring MVC matched it with.
 * Only the {@code REQUEST} dispatch counts: after a 404 or 405 the container dispatches to
 * {@code /error}, and the error controller answering is not a handler serving the request.
 */
class ServingRecorder implements HandlerInterceptor {

	private final RequestLedger ledger;

	ServingRecorder(RequestLedger ledger) {
		this.ledger = ledger;
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
		if (request.getDispatcherType() == DispatcherType.REQUEST) {
			Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
			Class<?> type = (handler instanceof HandlerMethod method) ? method.getBeanType() : handler.getClass();
			this.ledger.served(request.getHeader(RequestLedger.REQUEST_ID),
					new RequestLedger.Serving(request.getMethod(), (pattern != null) ? pattern.toString() : null, type,
							handler.toString(), versionOf(handler)));
		}
		return true;
	}

	/**
	 * The version a handler method's own mapping declares, else the one its controller's
	 * declares (the test's controllers never declare both).
	 */
	private static @Nullable String versionOf(Object handler) {
		if (!(handler instanceof HandlerMethod method)) {
			return null;
		}
		String version = versionOf(AnnotatedElementUtils.findMergedAnnotation(method.getMethod(), RequestMapping.class));
		return (version != null) ? version
				: versionOf(AnnotatedElementUtils.findMergedAnnotation(method.getBeanType(), RequestMapping.class));
	}

	private static @Nullable String versionOf(@Nullable RequestMapping mapping) {
		return (mapping != null && !mapping.version().isEmpty()) ? mapping.version() : null;
	}

}
