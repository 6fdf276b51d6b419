package io.ratelimit.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.util.Collection;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;

import io.ratelimit.autoconfigure.shed.SheddingProperties;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import org.springframework.beans.BeanUtils;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata that IDEs complete {@code ratelimit.*} from, as the build
 * generates it: every property {@link RateLimitProperties} and {@link SheddingProperties}
 * bind is there, with its
 * description. The processors that write it run only when the compiler is told of them
 * (a JDK 23 or later finds none on the class path), so a build that lost them fails here.
 */
class ConfigurationMetadataTest {

	@Test
	void metadataWhenGeneratedThenEveryBoundPropertyIsListedWithADescription() throws Exception {
		Map<String, String> listed = new TreeMap<>();
		try (InputStream json = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
			for (JsonNode property : new ObjectMapper().readTree(json).path("properties")) {
				listed.put(property.path("name").asString(), property.path("description").asString(""));
			}
		}
		TreeSet<String> bound = new TreeSet<>();
		collect("ratelimit", RateLimitProperties.class, bound);
		collect("ratelimit.shedding", SheddingProperties.class, bound);

		assertThat(bound).hasSizeGreaterThan(30).contains("ratelimit.burst-factor", "ratelimit.redis.failure-mode",
				"ratelimit.shedding.priorities", "ratelimit.shedding.probe.interval");
		assertThat(listed.keySet()).containsAll(bound);
		assertThat(listed).allSatisfy((name, description) -> assertThat(description).as(name).isNotBlank());
	}

	@Test
	void autoConfigurationMetadataWhenGeneratedThenListsTheConditionsOfTheAutoConfigurations() throws Exception {
		Properties metadata = new Properties();
		try (InputStream in = new ClassPathResource("META-INF/spring-autoconfigure-metadata.properties")
			.getInputStream()) {
			metadata.load(in);
		}

		assertThat(metadata).containsKey(RateLimitAutoConfiguration.class.getName() + ".ConditionalOnClass");
	}

	private static void collect(String prefix, Class<?> type, Collection<String> names) {
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			Class<?> valueType = property.getPropertyType();
			if (property.getReadMethod() == null || "class".equals(property.getName())) {
				continue;
			}
			String name = prefix + "." + kebab(property.getName());
			if (isNested(valueType)) {
				collect(name, valueType, names);
			}
			else if (property.getWriteMethod() != null || Collection.class.isAssignableFrom(valueType)
					|| Map.class.isAssignableFrom(valueType)) {
				names.add(name);
			}
		}
	}

	private static boolean isNested(Class<?> type) {
		return !type.isEnum() && type.getEnclosingClass() != null
				&& (type.getName().startsWith(RateLimitProperties.class.getName() + "$")
						|| type.getName().startsWith(SheddingProperties.class.getName() + "$"));
	}

	private static String kebab(String camel) {
		StringBuilder kebab = new StringBuilder();
		for (char c : camel.toCharArray()) {
			if (Character.isUpperCase(c)) {
				kebab.append('-').append(Character.toLowerCase(c));
			}
			else {
				kebab.append(c);
			}
		}
		return kebab.toString();
	}

}
