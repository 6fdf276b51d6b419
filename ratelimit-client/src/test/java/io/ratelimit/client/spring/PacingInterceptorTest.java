package io.ratelimit.client.spring;

import java.nio.charset.StandardCharsets;

import io.ratelimit.client.PacedClientContract;
import io.ratelimit.client.RateLimitedServer;
import io.ratelimit.client.RequestPacer;

import org.springframework.http.HttpMethod;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * {@link PacingInterceptor} in a {@code RestClient} over real HTTP against this project's
 * limiter ({@link RateLimitedServer}) on the system clock.
 */
class PacingInterceptorTest extends PacedClientContract {

	@Override
	protected PacedClient pacedClient(RateLimitedServer server, RequestPacer pacer) {
		JdkClientHttpRequestFactory requestFactory = new JdkClientHttpRequestFactory(newHttpClient());
		requestFactory.setReadTimeout(TIMEOUT);
		RestClient client = RestClient.builder()
			.requestFactory(requestFactory)
			.baseUrl("http://" + server.host())
			.requestInterceptor(new PacingInterceptor(pacer))
			.build();
		return (method, pathAndQuery, body) -> {
			RestClient.RequestBodySpec request = client.method(HttpMethod.valueOf(method)).uri(pathAndQuery);
			if (body != null) {
				request.body(body);
			}
			// The response as it is, a 429 included, rather than an exception for it.
			return request.exchange((clientRequest, response) -> new Reply(response.getStatusCode().value(),
					new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8),
					response.getHeaders().getFirst("Retry-After")));
		};
	}

}
