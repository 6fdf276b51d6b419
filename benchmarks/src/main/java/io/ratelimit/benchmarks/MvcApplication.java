package io.ratelimit.benchmarks;

import java.lang.reflect.Method;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockServletContext;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * A real Spring MVC web application context with the routes of {@link ApiTemplates}, for
 * the benchmarks that resolve endpoints through Spring MVC's handler mappings.
 * <p>
 * {@code @EnableWebMvc} sets up the same handler mappings a Spring Boot application has
 * (annotated mappings, bean names, router functions, static resources on {@code /**}), so
 * a request for a path without a route ends at the static-resource handler, as it does
 * under Boot. The routes are registered on the {@link RequestMappingHandlerMapping} with
 * its public {@code registerMapping}, each to the matching handler method of a CRUD
 * controller: the mapping registry is the same as if every route had its own
 * {@code @GetMapping}.
 */
final class MvcApplication implements AutoCloseable {

	private final AnnotationConfigWebApplicationContext context;

	private MvcApplication(AnnotationConfigWebApplicationContext context) {
		this.context = context;
	}

	/**
	 * Starts a context serving the given routes.
	 * @param routes the routes
	 * @return the running application
	 */
	static MvcApplication start(List<ApiTemplates.Route> routes) {
		AnnotationConfigWebApplicationContext context = new AnnotationConfigWebApplicationContext();
		context.setServletContext(new MockServletContext());
		context.register(WebConfiguration.class);
		context.refresh();
		RequestMappingHandlerMapping mapping = context.getBean(RequestMappingHandlerMapping.class);
		CrudController controller = context.getBean(CrudController.class);
		Map<ApiTemplates.Route.Kind, Method> handlers = handlerMethods();
		for (ApiTemplates.Route route : routes) {
			RequestMappingInfo info = RequestMappingInfo.paths(route.pattern())
				.methods(RequestMethod.valueOf(route.method()))
				.options(mapping.getBuilderConfiguration())
				.build();
			mapping.registerMapping(info, controller, handlers.get(route.kind()));
		}
		return new MvcApplication(context);
	}

	AnnotationConfigWebApplicationContext context() {
		return this.context;
	}

	@Override
	public void close() {
		this.context.close();
	}

	private static Map<ApiTemplates.Route.Kind, Method> handlerMethods() {
		Map<ApiTemplates.Route.Kind, Method> handlers = new EnumMap<>(ApiTemplates.Route.Kind.class);
		handlers.put(ApiTemplates.Route.Kind.LIST, ReflectionUtils.findMethod(CrudController.class, "list"));
		handlers.put(ApiTemplates.Route.Kind.CREATE, ReflectionUtils.findMethod(CrudController.class, "create"));
		handlers.put(ApiTemplates.Route.Kind.READ, ReflectionUtils.findMethod(CrudController.class, "read"));
		handlers.put(ApiTemplates.Route.Kind.UPDATE, ReflectionUtils.findMethod(CrudController.class, "update"));
		handlers.put(ApiTemplates.Route.Kind.DELETE, ReflectionUtils.findMethod(CrudController.class, "delete"));
		return handlers;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class WebConfiguration implements WebMvcConfigurer {

		@Override
		public void addResourceHandlers(ResourceHandlerRegistry registry) {
			// What Spring Boot maps by default: every path without a route may be a static file.
			registry.addResourceHandler("/**").addResourceLocations("classpath:/static/");
		}

		@Bean
		CrudController crudController() {
			return new CrudController();
		}

	}

	/**
	 * The handler methods routes are mapped to; the benchmarks only look handlers up, so
	 * they never run.
	 */
	static class CrudController {

		public String list() {
			return "list";
		}

		public String create() {
			return "create";
		}

		public String read() {
			return "read";
		}

		public String update() {
			return "update";
		}

		public String delete() {
			return "delete";
		}

	}

}
