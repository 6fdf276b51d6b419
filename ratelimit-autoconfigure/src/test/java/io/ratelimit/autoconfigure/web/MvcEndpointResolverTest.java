package io.ratelimit.autoconfigure.web;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import io.ratelimit.core.FakeTimeSource;
import io.ratelimit.core.endpoint.EndpointTemplate;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.Resource;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockServletContext;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.servlet.resource.ResourceResolver;
import org.springframework.web.servlet.resource.ResourceResolverChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MvcEndpointResolver} against a Spring MVC context whose routes have every kind of
 * condition: the template of a request must be what Spring MVC alone decides
 * ({@link ReferenceEndpointResolver}), however often the same method and path come back
 * with other headers or parameters, so that neither the route index nor the template cache
 * can change an answer.
 */
class MvcEndpointResolverTest {

	private final FakeTimeSource time = new FakeTimeSource();

	private AnnotationConfigWebApplicationContext context;

	private MvcEndpointResolver resolver;

	private ReferenceEndpointResolver reference;

	@BeforeEach
	void start() {
		this.context = new AnnotationConfigWebApplicationContext();
		this.context.setServletContext(new MockServletContext());
		this.context.register(WebConfiguration.class);
		this.context.refresh();
		RequestMappingHandlerMapping admin = this.context.getBean("adminMapping", RequestMappingHandlerMapping.class);
		RequestMappingInfo adminUser = RequestMappingInfo.paths("/api/users/{name}")
			.methods(RequestMethod.GET)
			.headers("X-Admin=1")
			.options(admin.getBuilderConfiguration())
			.build();
		admin.registerMapping(adminUser, this.context.getBean(Routes.class), handler("user"));
		this.resolver = new MvcEndpointResolver(this.context, this.time);
		this.reference = new ReferenceEndpointResolver(this.context);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void resolveWhenSamePathWithOtherContentTypeThenDecidedAgain() {
		assertThat(resolve("POST", "/api/orders", (request) -> request.setContentType("application/json")))
			.isEqualTo(template("POST /api/orders"));
		assertThat(resolve("POST", "/api/orders", (request) -> request.setContentType("text/plain")))
			.isEqualTo(EndpointTemplate.UNKNOWN);
		assertThat(resolve("POST", "/api/orders", (request) -> request.setContentType("application/json")))
			.isEqualTo(template("POST /api/orders"));
	}

	@Test
	void resolveWhenSamePathWithOtherAcceptThenDecidedAgain() {
		assertThat(resolve("GET", "/api/reports/1", (request) -> request.addHeader("Accept", "text/csv")))
			.isEqualTo(template("GET /api/reports/*"));
		assertThat(resolve("GET", "/api/reports/1", (request) -> request.addHeader("Accept", "application/json")))
			.isEqualTo(EndpointTemplate.UNKNOWN);
	}

	@Test
	void resolveWhenSamePathWithoutRequiredParameterThenDecidedAgain() {
		assertThat(resolve("GET", "/api/search", (request) -> request.addParameter("q", "x")))
			.isEqualTo(template("GET /api/search"));
		assertThat(resolve("GET", "/api/search", (request) -> {
		})).isEqualTo(EndpointTemplate.UNKNOWN);
	}

	/**
	 * {@code /api/items/special} is served by a route that needs a header, and otherwise by
	 * {@code /api/items/{id}}: the header decides, so the path must never be cached.
	 */
	@Test
	void resolveWhenHeaderConditionedRouteOverlapsThenHeaderDecidesEveryTime() {
		Consumer<MockHttpServletRequest> special = (request) -> request.addHeader("X-Special", "1");
		Consumer<MockHttpServletRequest> plain = (request) -> {
		};
		assertThat(resolve("GET", "/api/items/special", plain)).isEqualTo(template("GET /api/items/*"));
		assertThat(resolve("GET", "/api/items/special", special)).isEqualTo(template("GET /api/items/special"));
		assertThat(resolve("GET", "/api/items/special", plain)).isEqualTo(template("GET /api/items/*"));
		assertThat(resolve("GET", "/api/items/7", plain)).isEqualTo(template("GET /api/items/*"));
		assertThat(resolve("GET", "/api/items/7", special)).isEqualTo(template("GET /api/items/*"));
	}

	/**
	 * A mapping asked first (as Actuator's is) serves {@code /api/users/me} only with a
	 * header; without it, the application's own route does. The path must never be cached.
	 */
	@Test
	void resolveWhenEarlierMappingServesPathOnlyWithHeaderThenHeaderDecidesEveryTime() {
		Consumer<MockHttpServletRequest> admin = (request) -> request.addHeader("X-Admin", "1");
		assertThat(resolve("GET", "/api/users/me", null)).isEqualTo(template("GET /api/users/me"));
		assertThat(resolve("GET", "/api/users/me", admin)).isEqualTo(template("GET /api/users/*"));
		assertThat(resolve("GET", "/api/users/me", null)).isEqualTo(template("GET /api/users/me"));
	}

	@Test
	void resolveWhenRouteRegisteredAtRuntimeThenChargedWithinASecond() throws Exception {
		assertThat(resolve("GET", "/api/late/1", null)).isEqualTo(EndpointTemplate.UNKNOWN);
		RequestMappingHandlerMapping mapping = this.context.getBean("requestMappingHandlerMapping",
				RequestMappingHandlerMapping.class);
		RequestMappingInfo late = RequestMappingInfo.paths("/api/late/{id}")
			.methods(RequestMethod.GET)
			.options(mapping.getBuilderConfiguration())
			.build();
		mapping.registerMapping(late, this.context.getBean(Routes.class), handler("user"));

		this.time.advance(Duration.ofSeconds(1));

		assertThat(resolve("GET", "/api/late/1", null)).isEqualTo(template("GET /api/late/*"));
	}

	/**
	 * A route no template can name (2,400 characters once its 400 {@code é} are escaped) is
	 * charged to UNKNOWN, rather than failing every request to it.
	 */
	@Test
	void resolveWhenRouteTooLongForAnyTemplateThenUnknownNotFailure() {
		RequestMappingHandlerMapping mapping = this.context.getBean("requestMappingHandlerMapping",
				RequestMappingHandlerMapping.class);
		RequestMappingInfo huge = RequestMappingInfo.paths("/api/huge/" + "\u00e9".repeat(400))
			.methods(RequestMethod.GET)
			.options(mapping.getBuilderConfiguration())
			.build();
		mapping.registerMapping(huge, this.context.getBean(Routes.class), handler("user"));
		this.time.advance(Duration.ofSeconds(1));

		assertThat(resolve("GET", "/api/huge/" + "%C3%A9".repeat(400), null)).isEqualTo(EndpointTemplate.UNKNOWN);
		assertThat(resolve("GET", "/api/huge/" + "%C3%A9".repeat(400), null)).isEqualTo(EndpointTemplate.UNKNOWN);
	}

	@Test
	void resolveWhenCachedRouteRemovedAtRuntimeThenUnknownWithinASecond() {
		assertThat(resolve("GET", "/api/legacy/1", null)).isEqualTo(template("GET /api/legacy/*"));
		RequestMappingHandlerMapping mapping = this.context.getBean("requestMappingHandlerMapping",
				RequestMappingHandlerMapping.class);
		mapping.getHandlerMethods()
			.keySet()
			.stream()
			.filter((info) -> info.getPatternValues().contains("/api/legacy/{id}"))
			.toList()
			.forEach(mapping::unregisterMapping);

		this.time.advance(Duration.ofSeconds(1));

		assertThat(resolve("GET", "/api/legacy/1", null)).isEqualTo(EndpointTemplate.UNKNOWN);
	}

	/**
	 * Every method, path variant and header set, twice in two different orders, so that
	 * each request meets whatever earlier requests with the same method and path left in
	 * the cache: the answers are Spring MVC's every time.
	 */
	@Test
	void resolveWhenCorpusSentTwiceInAnyOrderThenAlwaysAsSpringMvcDecides() {
		List<Sample> corpus = corpus();
		assertThat(corpus).hasSizeGreaterThan(2000);
		Random random = new Random(20260601);
		int templates = 0;
		for (int round = 0; round < 2; round++) {
			List<Sample> order = new ArrayList<>(corpus);
			Collections.shuffle(order, random);
			for (Sample sample : order) {
				MockHttpServletRequest request = sample.request();
				EndpointTemplate expected = this.reference.resolve(request);
				assertThat(resolve(sample.request())).as("%s", sample).isEqualTo(expected);
				templates += expected.isUnknown() ? 0 : 1;
			}
		}
		assertThat(templates).as("requests charged to a template").isGreaterThan(500);
	}

	private static List<Sample> corpus() {
		List<String> methods = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");
		List<String> paths = List.of("/api/users/42", "/api/users/me", "/api/users/%34%32", "/api/users/me;x=1",
				"/api/users/42/", "/api/Users/42", "/api//users/42", "/api/users/42/avatar.png",
				"/api/users/me/avatar.png", "/api/orders", "/api/orders;a=b", "/api/orders/", "/api/reports/1",
				"/api/reports/%31", "/api/search", "/api/items/special", "/api/items/7", "/api/items/speci%61l",
				"/api/files/a/b", "/api/files", "/api/files/", "/api/any", "/api/any;x=1", "/api/ping", "/api/p%69ng",
				"/api/ping/", "/api/legacy/1", "/api/legacy/..", "/api/unknown/1", "/api", "/", "/index.html",
				"/nowhere", "//api/users/42", "/API/orders", "/api/users/%2e%2e", "/api/users/" + "a".repeat(300),
				"/api/files/" + "b/".repeat(200));
		List<Consumer<MockHttpServletRequest>> headers = List.of((request) -> {
		}, (request) -> request.setContentType("application/json"), (request) -> request.setContentType("text/plain"),
				(request) -> request.setContentType("not a media type"),
				(request) -> request.addHeader("Accept", "text/csv"),
				(request) -> request.addHeader("Accept", "application/json"),
				(request) -> request.addHeader("X-Special", "1"), (request) -> request.addHeader("X-Admin", "1"),
				(request) -> request.addParameter("q", "x"),
				(request) -> {
					request.addHeader("Origin", "https://other.example");
					request.addHeader("Access-Control-Request-Method", "PUT");
				});
		List<Sample> corpus = new ArrayList<>();
		for (String method : methods) {
			for (String path : paths) {
				for (int i = 0; i < headers.size(); i++) {
					corpus.add(new Sample(method, path, i, headers.get(i)));
				}
			}
		}
		return corpus;
	}

	/**
	 * Rejecting unknown endpoints asks the static-resource handler whether a path the
	 * catch-all {@code /**} takes has a resource: random paths repeated must not repeat that
	 * lookup, and a resource added at runtime is found once the answer expires.
	 */
	@Test
	void resolveWhenMissingResourceAskedAgainThenLookedUpOnceUntilExpired() {
		MvcEndpointResolver rejecting = new MvcEndpointResolver(this.context, this.time, true);
		ResourceLookups lookups = this.context.getBean(ResourceLookups.class);
		int before = lookups.count;

		for (int i = 0; i < 3; i++) {
			assertThat(rejecting.resolve(new ServletRateLimitRequest(new Sample("GET", "/nowhere.css", 0, (request) -> {
			}).request()))).isSameAs(EndpointTemplate.UNKNOWN);
			assertThat(rejecting.resolve(new ServletRateLimitRequest(new Sample("GET", "/site.css", 0, (request) -> {
			}).request()))).isSameAs(EndpointTemplate.SERVED_UNKNOWN);
		}
		assertThat(lookups.count - before).isEqualTo(2);

		this.time.advance(MvcEndpointResolver.RESOURCE_LOOKUP_EXPIRY);
		rejecting.resolve(new ServletRateLimitRequest(new Sample("GET", "/nowhere.css", 0, (request) -> {
		}).request()));
		assertThat(lookups.count - before).isEqualTo(3);
	}

	private EndpointTemplate resolve(String method, String path, Consumer<MockHttpServletRequest> customizer) {
		return resolve(new Sample(method, path, 0, customizer).request());
	}

	private EndpointTemplate resolve(MockHttpServletRequest request) {
		return this.resolver.resolve(new ServletRateLimitRequest(request));
	}

	private static EndpointTemplate template(String text) {
		return EndpointTemplate.parse(text);
	}

	private static Method handler(String name) {
		return ReflectionUtils.findMethod(Routes.class, name, String.class);
	}

	/**
	 * One request of the corpus.
	 */
	private record Sample(String method, String path, int headerSet,
			Consumer<MockHttpServletRequest> customizer) {

		MockHttpServletRequest request() {
			MockHttpServletRequest request = new MockHttpServletRequest(this.method, this.path);
			if (this.customizer != null) {
				this.customizer.accept(request);
			}
			return request;
		}

		@Override
		public String toString() {
			return this.method + " " + this.path + " (header set " + this.headerSet + ")";
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class WebConfiguration implements WebMvcConfigurer {

		private final ResourceLookups lookups = new ResourceLookups();

		@Override
		public void addResourceHandlers(ResourceHandlerRegistry registry) {
			registry.addResourceHandler("/**")
				.addResourceLocations("classpath:/differential-static/")
				.resourceChain(false)
				.addResolver(this.lookups);
		}

		@Bean
		ResourceLookups resourceLookups() {
			return this.lookups;
		}

		@Override
		public void addViewControllers(ViewControllerRegistry registry) {
			registry.addViewController("/api/ping").setViewName("ping");
		}

		/** A second annotated mapping, asked first, with routes of its own only. */
		@Bean
		RequestMappingHandlerMapping adminMapping() {
			RequestMappingHandlerMapping mapping = new RequestMappingHandlerMapping() {

				@Override
				protected boolean isHandler(Class<?> beanType) {
					return false;
				}

			};
			mapping.setOrder(-100);
			return mapping;
		}

		@Bean
		Routes routes() {
			return new Routes();
		}

	}

	/** Counts the static-resource handler's lookups. */
	static class ResourceLookups implements ResourceResolver {

		volatile int count;

		@Override
		public @Nullable Resource resolveResource(@Nullable HttpServletRequest request, String requestPath,
				List<? extends Resource> locations, ResourceResolverChain chain) {
			this.count++;
			return chain.resolveResource(request, requestPath, locations);
		}

		@Override
		public @Nullable String resolveUrlPath(String resourcePath, List<? extends Resource> locations,
				ResourceResolverChain chain) {
			return chain.resolveUrlPath(resourcePath, locations);
		}

	}

	@RestController
	static class Routes {

		@GetMapping("/api/users/{id}")
		String user(@PathVariable String id) {
			return "user";
		}

		@PutMapping("/api/users/{id}")
		String replaceUser(@PathVariable String id) {
			return "replaced";
		}

		@GetMapping("/api/users/me")
		String me() {
			return "me";
		}

		@DeleteMapping("/api/users/me")
		String deleteMe() {
			return "deleted";
		}

		@GetMapping("/api/users/{id}/avatar.{ext}")
		String avatar(@PathVariable String id, @PathVariable String ext) {
			return "avatar";
		}

		@PostMapping(path = "/api/orders", consumes = "application/json")
		String placeOrder() {
			return "placed";
		}

		@GetMapping(path = "/api/reports/{id}", produces = "text/csv")
		String report(@PathVariable String id) {
			return "report";
		}

		@GetMapping(path = "/api/search", params = "q")
		String search() {
			return "found";
		}

		@GetMapping("/api/items/{id}")
		String item(@PathVariable String id) {
			return "item";
		}

		@GetMapping(path = "/api/items/special", headers = "X-Special=1")
		String specialItem() {
			return "special";
		}

		@GetMapping("/api/files/{*rest}")
		String file(@PathVariable String rest) {
			return "file";
		}

		@RequestMapping("/api/any")
		String any() {
			return "any";
		}

		@GetMapping("/api/legacy/{id}")
		String legacy(@PathVariable String id) {
			return "legacy";
		}

	}

}
