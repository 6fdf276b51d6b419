package io.ratelimit.core.endpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class EndpointTemplateTest {

	@ParameterizedTest(name = "{0} -> {1}")
	@CsvSource(delimiter = '|', textBlock = """
			/api/users/{id}                | /api/users/*
			/api/users/{userId}            | /api/users/*
			/api/users/{id:\\d+}            | /api/users/*
			/api/users/{id:[0-9]{1,3}}     | /api/users/*
			/api/orders/{id}/items         | /api/orders/*/items
			/files/{*rest}                 | /files/**
			/files/**                      | /files/**
			/img/{name}.{ext}              | /img/*.*
			/img/{a}{b}                    | /img/*
			/img/*.png                     | /img/*.png
			/api/v?/users                  | /api/v*/users
			api/products                   | /api/products
			/                              | /
			''                             | /
			""")
	void fromPatternWhenSpringPatternThenVariablesCollapse(String pattern, String path) {
		assertThat(EndpointTemplate.fromPattern("GET", pattern).path()).isEqualTo(path);
	}

	@ParameterizedTest(name = "{0} -> {1}")
	@CsvSource(delimiterString = "=>", textBlock = """
			/api/caf\u00e9                 => /api/caf%C3%A9
			'/api/a b'                     => /api/a%20b
			/api/a|b                       => /api/a%7Cb
			/api/[x]/{id}                  => /api/%5Bx%5D/*
			/api/100%                      => /api/100%25
			/api/%C3%A9                    => /api/%25C3%25A9
			/api/\u00e9{id:[a-z]+}.\u00e9 => /api/%C3%A9*.%C3%A9
			/api/\ud83d\ude00             => /api/%F0%9F%98%80
			/api/a"b<c>^`\\               => /api/a%22b%3Cc%3E%5E%60%5C
			""")
	void fromPatternWhenCharacterTemplatesCannotHoldThenPercentEscapedAndParsedBack(String pattern, String path) {
		EndpointTemplate template = EndpointTemplate.fromPattern("GET", pattern);

		assertThat(template.path()).isEqualTo(path);
		assertThat(EndpointTemplate.parse(template.toString())).isEqualTo(template);
	}

	@Test
	void fromPatternWhenVariableRenamedThenSameTemplate() {
		assertThat(EndpointTemplate.fromPattern("GET", "/api/users/{id}"))
			.isEqualTo(EndpointTemplate.fromPattern("GET", "/api/users/{userId}"))
			.hasSameHashCodeAs(EndpointTemplate.fromPattern("GET", "/api/users/{userId}"));
	}

	@Test
	void ofWhenHeadThenChargedAsGet() {
		EndpointTemplate head = EndpointTemplate.of("HEAD", "/api/users/*");

		assertThat(head).isEqualTo(EndpointTemplate.of("GET", "/api/users/*"));
		assertThat(head).hasToString("GET /api/users/*");
	}

	@Test
	void parseWhenTextFormThenRoundTrips() {
		EndpointTemplate template = EndpointTemplate.parse("POST /api/orders/*/items");

		assertThat(template.method()).isEqualTo("POST");
		assertThat(template.path()).isEqualTo("/api/orders/*/items");
		assertThat(EndpointTemplate.parse(template.toString())).isEqualTo(template);
	}

	@Test
	void parseWhenReservedNameThenReservedTemplate() {
		assertThat(EndpointTemplate.parse("UNKNOWN")).isSameAs(EndpointTemplate.UNKNOWN);
		assertThat(EndpointTemplate.parse("default")).isSameAs(EndpointTemplate.DEFAULT);
		assertThat(EndpointTemplate.UNKNOWN.isReserved()).isTrue();
		assertThat(EndpointTemplate.UNKNOWN.isUnknown()).isTrue();
		assertThat(EndpointTemplate.DEFAULT.isUnknown()).isFalse();
		assertThat(EndpointTemplate.DEFAULT.method()).isNull();
	}

	@Test
	void servedUnknownWhenComparedThenIsUnknownButNotServedByNothing() {
		assertThat(EndpointTemplate.SERVED_UNKNOWN).isEqualTo(EndpointTemplate.UNKNOWN)
			.hasSameHashCodeAs(EndpointTemplate.UNKNOWN)
			.hasToString("UNKNOWN");
		assertThat(EndpointTemplate.SERVED_UNKNOWN.isUnknown()).isTrue();
		assertThat(EndpointTemplate.SERVED_UNKNOWN.isReserved()).isTrue();
		assertThat(EndpointTemplate.SERVED_UNKNOWN.isServedByNothing()).isFalse();
		assertThat(EndpointTemplate.UNKNOWN.isServedByNothing()).isTrue();
		assertThat(EndpointTemplate.parse("GET /a").isServedByNothing()).isFalse();
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			unknown                  | expected 'METHOD /path', 'default' or 'UNKNOWN'
			Default                  | expected 'METHOD /path'
			GET                      | expected 'METHOD /path'
			'GET  /x'                | must start with '/'
			'GET /x y'               | must not contain ' '
			GET /x?q=1               | must not contain '?'
			GET /x#y                 | must not contain '#'
			GET /a/%                 | '''%'' must start a percent-escape of two upper-case hex digits'
			GET /a/%C                | '''%'' must start a percent-escape'
			GET /a/%c3%a9            | '''%'' must start a percent-escape of two upper-case hex digits'
			GET /a/%41               | '''%41'' must be written as ''A'''
			GET /a/%2A               | '''%2A'' must be written as ''*'''
			GET /a/{id}              | must not contain '{'
			GET /a/***               | '''**'' must be a whole path segment'
			GET /a/**x;version=2     | '''**'' must be a whole path segment'
			GET /a/**;v=**           | '''**'' must be a whole path segment'
			g3t /a                   | upper-case letters
			HEAD /a                  | HEAD is charged as GET, so write 'GET /a'
			""")
	void parseWhenMalformedThenMessageNamesTextAndProblem(String text, String problem) {
		assertThatIllegalArgumentException().isThrownBy(() -> EndpointTemplate.parse(text))
			.withMessageContaining(problem)
			.withMessageContaining(text.length() < 20 ? text : "");
	}

	@Test
	void fromPatternWhenCatchAllRouteIsVersionedThenTemplateKeepsItsVersion() {
		EndpointTemplate template = EndpointTemplate.fromPattern("GET", "/api/files/{*path};version=2");

		assertThat(template).hasToString("GET /api/files/**;version=2");
		assertThat(EndpointTemplate.parse("GET /api/files/**;version=2")).isEqualTo(template);
	}

	@Test
	void parseWhenControlCharactersThenEscapedEverywhereInTheMessage() {
		assertThatIllegalArgumentException().isThrownBy(() -> EndpointTemplate.parse("GET /a\nWARN forged\u0000"))
			.withMessage("Invalid endpoint template 'GET /a\\u000aWARN forged\\u0000': the path must not contain '\\u000a'");
	}

	@Test
	void parseWhenHugeThenRejectedWithoutEchoingIt() {
		String huge = "GET /" + "a".repeat(5000);

		assertThatIllegalArgumentException().isThrownBy(() -> EndpointTemplate.parse(huge))
			.withMessage("Invalid endpoint template: longer than 1024 characters");
	}

}
