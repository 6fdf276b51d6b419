package io.ratelimit.core.identity;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.ratelimit.core.RateLimitRequest;
import io.ratelimit.core.TestRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Tests for {@link ClientIpResolver}: the rules of SPEC-HTTP section 3, with trusted proxies
 * {@code 10.0.0.0/8} and {@code fd00::/8} and, unless a row says otherwise, the trusted peer
 * {@code 10.0.0.2} (so "10.0.0.2" as the expected key means "fell back to the peer").
 */
class ClientIpResolverTest {

	private static final String PEER = "10.0.0.2";

	private static final List<IpRange> TRUSTED = List.of(IpRange.parse("10.0.0.0/8"), IpRange.parse("fd00::/8"));

	private final ClientIpResolver xForwardedFor = resolver(ForwardingHeader.X_FORWARDED_FOR, 32, 64);

	private final ClientIpResolver forwarded = resolver(ForwardingHeader.FORWARDED, 32, 64);

	@ParameterizedTest(name = "[{index}] {0} from {1}: {2} -> {3}")
	@CsvSource(delimiter = '|', textBlock = """
			X_FORWARDED_FOR | 198.51.100.7 | 1.2.3.4                                     | 198.51.100.7
			X_FORWARDED_FOR | 10.0.0.2     | 198.51.100.1, 203.0.113.7                   | 203.0.113.7
			X_FORWARDED_FOR | 10.0.0.2     | 203.0.113.7, 10.0.0.5                       | 203.0.113.7
			X_FORWARDED_FOR | 10.0.0.2     | garbage, 203.0.113.7                        | 203.0.113.7
			X_FORWARDED_FOR | 10.0.0.2     | 203.0.113.7, garbage                        | 10.0.0.2
			X_FORWARDED_FOR | 10.0.0.2     | 203.0.113.7:4711                            | 203.0.113.7
			X_FORWARDED_FOR | 10.0.0.2     | 2001:db8:a:12:aaaa:bbbb:cccc:dddd           | 2001:db8:a:12::/64
			X_FORWARDED_FOR | 10.0.0.2     | ::ffff:203.0.113.7                          | 203.0.113.7
			X_FORWARDED_FOR | 10.0.0.2     | 2130706433                                  | 10.0.0.2
			FORWARDED       | 10.0.0.2     | for=192.0.2.60;proto=http;by=203.0.113.43   | 192.0.2.60
			FORWARDED       | 10.0.0.2     | 'For="[2001:db8:cafe::17]:4711"'            | 2001:db8:cafe::/64
			""")
	void resolveWhenSpecExampleThenSpecKey(ForwardingHeader header, String peer, String value, String key) {
		assertThat(resolver(header, 32, 64).resolve(peer, List.of(value))).isEqualTo(new NetworkIdentity(key));
	}

	@Test
	void resolveWhenSpecExampleWithTwoLinesThenJoinsThem() {
		assertThat(this.xForwardedFor.resolve(PEER, List.of("1.1.1.1", "203.0.113.7"))).hasToString("203.0.113.7");
	}

	@ParameterizedTest(name = "[{index}] X-Forwarded-For: {0} -> {1}")
	@CsvSource(delimiter = '|', textBlock = """
			203.0.113.7                                 | 203.0.113.7
			'  203.0.113.7  '                           | 203.0.113.7
			'203.0.113.7,,, ,'                          | 203.0.113.7
			' , ,203.0.113.7,,, ,10.1.1.1'              | 203.0.113.7
			10.1.1.1, 10.2.2.2                          | 10.1.1.1
			garbage, 10.0.0.9                           | 10.0.0.9
			203.0.113.7, 10.0.0.9, garbage, 10.0.0.8    | 10.0.0.8
			198.51.100.1, 203.0.113.7, 10.0.0.9         | 203.0.113.7
			203.0.113.9, ::ffff:10.0.0.9                | 203.0.113.9
			203.0.113.7:65535                           | 203.0.113.7
			203.0.113.7:0                               | 203.0.113.7
			203.0.113.7:                                | 10.0.0.2
			203.0.113.7:123456                          | 10.0.0.2
			203.0.113.7:http                            | 10.0.0.2
			203.0.113.7:80:80                           | 10.0.0.2
			:80                                         | 10.0.0.2
			'"203.0.113.7"'                             | 10.0.0.2
			2001:DB8:A:12::1                            | 2001:db8:a:12::/64
			2001:0db8:000a:0012:0000:0000:0000:0001     | 2001:db8:a:12::/64
			2001:db8:a:12:0:0:0:1                       | 2001:db8:a:12::/64
			[2001:db8::1]                               | 2001:db8::/64
			[2001:db8::1]:8080                          | 2001:db8::/64
			[::ffff:203.0.113.7]:8080                   | 203.0.113.7
			2001:db8::1:8080                            | 2001:db8::/64
			64:ff9b::203.0.113.7                        | 64:ff9b::/64
			::1.2.3.4                                   | ::/64
			fd00::1                                     | fd00::/64
			2001:db8::7, fd12:3456::1                   | 2001:db8::/64
			2001:db8::1%eth0                            | 10.0.0.2
			[2001:db8::1%eth0]                          | 10.0.0.2
			[2001:db8::1                                | 10.0.0.2
			2001:db8::1]                                | 10.0.0.2
			[2001:db8::1]:                              | 10.0.0.2
			[2001:db8::1]8080                           | 10.0.0.2
			[2001:db8::1]:_hidden                       | 10.0.0.2
			[203.0.113.7]                               | 10.0.0.2
			[203.0.113.7]:80                            | 10.0.0.2
			2001:db8:::1                                | 10.0.0.2
			2001:db8::1::2                              | 10.0.0.2
			unknown                                     | 10.0.0.2
			_hidden                                     | 10.0.0.2
			example.com                                 | 10.0.0.2
			localhost                                   | 10.0.0.2
			0x7f000001                                  | 10.0.0.2
			127.1                                       | 10.0.0.2
			203.0.113.007                               | 10.0.0.2
			203.0.113.256                               | 10.0.0.2
			203.0.113.7 203.0.113.8                     | 10.0.0.2
			203.0.113.7;for=1.2.3.4                     | 10.0.0.2
			for=203.0.113.7                             | 10.0.0.2
			''                                          | 10.0.0.2
			'   '                                       | 10.0.0.2
			',,,'                                       | 10.0.0.2
			""")
	void resolveWhenXForwardedForThenRightmostUntrustedOrNearestGoodHop(String value, String key) {
		assertThat(this.xForwardedFor.resolve(PEER, List.of(value))).isEqualTo(new NetworkIdentity(key));
	}

	@ParameterizedTest(name = "[{index}] Forwarded: {0} -> {1}")
	@CsvSource(delimiter = '|', textBlock = """
			for=192.0.2.60                                          | 192.0.2.60
			FOR=192.0.2.60                                          | 192.0.2.60
			'for="192.0.2.60"'                                      | 192.0.2.60
			'for="192.0.2.60:47011"'                                | 192.0.2.60
			'for="192.0.2.60:_port"'                                | 192.0.2.60
			'for="[2001:db8:cafe::17]"'                             | 2001:db8:cafe::/64
			'for="[2001:DB8:CAFE::17]:_abc-1.2"'                    | 2001:db8:cafe::/64
			'for="[::ffff:203.0.113.7]"'                            | 203.0.113.7
			by=10.0.0.1;for=192.0.2.60;host=example.com;proto=https | 192.0.2.60
			for=192.0.2.60;                                         | 192.0.2.60
			;;for=192.0.2.60                                        | 192.0.2.60
			for=192.0.2.60 ; proto=http                             | 192.0.2.60
			'for=192.0.2.60;ext="a;b=c"'                            | 192.0.2.60
			for=192.0.2.60, for=10.0.0.9                            | 192.0.2.60
			'for=192.0.2.43, for="[fd00::1]"'                       | 192.0.2.43
			'for=198.51.100.1, for=10.0.0.9;ext="x,for=192.0.2.1"'  | 198.51.100.1
			'for=198.51.100.1, for=10.0.0.9;ext="x\\",for=192.0.2.1"' | 198.51.100.1
			for=192.0.2.60:47011                                    | 10.0.0.2
			'for="192.0.2.60:"'                                     | 10.0.0.2
			'for="192.0.2.60:123456"'                               | 10.0.0.2
			'for="[2001:db8::1]:123456"'                            | 10.0.0.2
			'for="[2001:db8::1]:_"'                                 | 10.0.0.2
			for=2001:db8::1                                         | 10.0.0.2
			for=[2001:db8::1]                                       | 10.0.0.2
			'for="2001:db8::1"'                                     | 10.0.0.2
			'for="[2001:db8::1%eth0]"'                              | 10.0.0.2
			'for="[192.0.2.60]"'                                    | 10.0.0.2
			for=unknown                                             | 10.0.0.2
			'for="unknown"'                                         | 10.0.0.2
			for=_hidden                                             | 10.0.0.2
			'for="_hidden"'                                         | 10.0.0.2
			proto=https;by=203.0.113.43                             | 10.0.0.2
			192.0.2.60                                              | 10.0.0.2
			for=192.0.2.60;for=198.51.100.1                         | 10.0.0.2
			for=192.0.2.60;FOR=198.51.100.1                         | 10.0.0.2
			for=192.0.2.60;proto=http;Proto=https                   | 10.0.0.2
			for=192.0.2.60;ext=1;EXT=2                              | 10.0.0.2
			'for="192.0.2.60'                                       | 10.0.0.2
			'for="192.0.2.60"x'                                     | 10.0.0.2
			'for=192.0.2.60"'                                       | 10.0.0.2
			'for=""'                                                | 10.0.0.2
			'for='                                                  | 10.0.0.2
			'for="\\192.0.2.60"'                                    | 10.0.0.2
			for = 192.0.2.60                                        | 10.0.0.2
			for=192.0.2.60;garbage                                  | 10.0.0.2
			for=192.0.2.60 proto=http                               | 10.0.0.2
			=192.0.2.60                                             | 10.0.0.2
			for=192.0.2.60, garbage                                 | 10.0.0.2
			garbage, for=10.0.0.9                                   | 10.0.0.9
			for=010.0.0.9                                           | 10.0.0.2
			""")
	void resolveWhenForwardedThenForNodeOfRightmostUntrustedElement(String value, String key) {
		assertThat(this.forwarded.resolve(PEER, List.of(value))).isEqualTo(new NetworkIdentity(key));
	}

	@ParameterizedTest(name = "[{index}] peer {0}, X-Forwarded-For {1} -> {2}")
	@CsvSource(delimiter = '|', textBlock = """
			198.51.100.7                | 10.0.0.9, garbage, 203.0.113.7      | 198.51.100.7
			198.51.100.7                | 2130706433                          | 198.51.100.7
			9.255.255.255               | 203.0.113.7                         | 9.255.255.255
			11.0.0.0                    | 203.0.113.7                         | 11.0.0.0
			10.255.255.255              | 203.0.113.7                         | 203.0.113.7
			0:0:0:0:0:0:0:1             | 203.0.113.7                         | ::/64
			2001:db8:a:12::99           | 203.0.113.7                         | 2001:db8:a:12::/64
			2001:DB8:A:12:0:0:0:99      | 203.0.113.7                         | 2001:db8:a:12::/64
			fc00::1                     | 203.0.113.7                         | fc00::/64
			::ffff:198.51.100.7         | 203.0.113.7                         | 198.51.100.7
			::ffff:10.0.0.2             | 203.0.113.7                         | 203.0.113.7
			fd00::2                     | 203.0.113.7                         | 203.0.113.7
			fd00::2                     | garbage                             | fd00::/64
			fd00:0:0:0:1::2             | 10.0.0.9                            | 10.0.0.9
			                            | 203.0.113.7                         | invalid
			''                          | 203.0.113.7                         | invalid
			unknown                     | 203.0.113.7                         | invalid
			localhost                   | 203.0.113.7                         | invalid
			10.0.0.2:8080               | 203.0.113.7                         | invalid
			'10.0.0.2 '                 | 203.0.113.7                         | invalid
			[fd00::2]                   | 203.0.113.7                         | invalid
			fd00::2%eth0                | 203.0.113.7                         | invalid
			167772162                   | 203.0.113.7                         | invalid
			""")
	void resolveWhenPeerThenTrustDecidesWhetherHeaderCounts(@Nullable String peer, String value, String key) {
		assertThat(this.xForwardedFor.resolve(peer, List.of(value))).isEqualTo(new NetworkIdentity(key));
	}

	@ParameterizedTest(name = "[{index}] {0}")
	@MethodSource
	void resolveWhenControlCharactersOrHugeInputThenNeverMistakenForAddress(String description, ForwardingHeader header,
			String value, String key) {
		assertThat(resolver(header, 32, 64).resolve(PEER, List.of(value))).isEqualTo(new NetworkIdentity(key));
	}

	static Stream<Arguments> resolveWhenControlCharactersOrHugeInputThenNeverMistakenForAddress() {
		ForwardingHeader xff = ForwardingHeader.X_FORWARDED_FOR;
		ForwardingHeader fwd = ForwardingHeader.FORWARDED;
		return Stream.of(arguments("tabs are whitespace", xff, "\t203.0.113.7\t", "203.0.113.7"),
				arguments("NUL after address", xff, "203.0.113.7\u0000", PEER),
				arguments("control before address", xff, "\u0001203.0.113.7", PEER),
				arguments("CRLF after address", xff, "203.0.113.7\r\n", PEER),
				arguments("vertical tab after address", xff, "203.0.113.7\u000b", PEER),
				arguments("no-break space after address", xff, "203.0.113.7\u00a0", PEER),
				arguments("fullwidth digits", xff, "\uff12\uff10\uff13.0.113.7", PEER),
				arguments("Arabic-Indic digit", xff, "203.0.113.\u0667", PEER),
				arguments("NUL in quoted for", fwd, "for=\"203.0.113.7\u0000\"", PEER),
				arguments("DEL in quoted ext", fwd, "for=203.0.113.7;ext=\"\u007f\"", PEER),
				arguments("obs-text in quoted ext", fwd, "for=203.0.113.7;ext=\"\u00e9\"", "203.0.113.7"),
				arguments("100k digits", xff, "1".repeat(100_000), PEER),
				arguments("100k-char IPv6-looking", xff, "1:".repeat(50_000) + ":1", PEER),
				arguments("10k commas then address", xff, ",".repeat(10_000) + "203.0.113.7", "203.0.113.7"),
				arguments("address then 10k garbage", xff, "203.0.113.7, " + "x".repeat(10_000), PEER),
				arguments("huge quoted ext", fwd, "for=203.0.113.7;ext=\"" + "a,".repeat(20_000) + "\"",
						"203.0.113.7"),
				arguments("unterminated quote hides nothing after it", fwd, "for=\"" + ", for=203.0.113.7",
						"203.0.113.7"),
				arguments("10k extension parameters", fwd, "for=203.0.113.7" + ";e1=1".repeat(10_000), PEER),
				arguments("10k distinct extension parameters", fwd, distinctExtensions(10_000) + ";for=203.0.113.7",
						"203.0.113.7"));
	}

	private static String distinctExtensions(int count) {
		StringBuilder text = new StringBuilder("e0=0");
		for (int i = 1; i < count; i++) {
			text.append(";e").append(i).append('=').append(i);
		}
		return text.toString();
	}

	@Test
	void resolveWhenSeveralLinesThenJoinedInOrderReceived() {
		assertThat(this.xForwardedFor.resolve(PEER, List.of("203.0.113.7", "", "10.0.0.9"))).hasToString("203.0.113.7");
		assertThat(this.xForwardedFor.resolve(PEER, List.of("10.0.0.9", "203.0.113.7, 10.0.0.8")))
			.hasToString("203.0.113.7");
		assertThat(this.xForwardedFor.resolve(PEER, List.of("203.0.113.7", "garbage"))).hasToString(PEER);
		assertThat(this.xForwardedFor.resolve(PEER, List.of("203.0.113.7", "10.0.0.9,", ",10.0.0.8")))
			.hasToString("203.0.113.7");
		assertThat(this.forwarded.resolve(PEER, List.of("for=198.51.100.1", "for=\"[fd00::1]\"")))
			.hasToString("198.51.100.1");
	}

	/**
	 * The client writes the left part, the trusted peer appends its own element, on the same
	 * line or on a line of its own: a quote the client leaves open must not swallow it.
	 */
	@ParameterizedTest(name = "[{index}] {0} then {1}")
	@MethodSource
	void resolveWhenClientLeavesQuoteOpenThenElementsAppendedAfterItStillCount(String client, String appended,
			String key) {
		assertThat(this.forwarded.resolve(PEER, List.of(client + ", " + appended))).hasToString(key);
		assertThat(this.forwarded.resolve(PEER, List.of(client, appended))).hasToString(key);
	}

	static Stream<Arguments> resolveWhenClientLeavesQuoteOpenThenElementsAppendedAfterItStillCount() {
		return Stream.of(arguments("for=\"", "for=203.0.113.7", "203.0.113.7"),
				arguments("for=\"198.51.100.1", "for=203.0.113.7", "203.0.113.7"),
				arguments("for=\"x\\", "for=203.0.113.7", "203.0.113.7"),
				arguments("for=\"x\\\"", "for=\"203.0.113.7:4711\"", "203.0.113.7"),
				arguments("for=\"", "for=\"[2001:db8:cafe::17]\"", "2001:db8:cafe::/64"),
				arguments("for=198.51.100.1;ext=\"a, b", "for=203.0.113.7;proto=https", "203.0.113.7"),
				arguments("for=\"", "for=\"203.0.113.7\", for=\"10.0.0.5\"", "203.0.113.7"),
				arguments("for=\"", "for=10.0.0.9, for=10.0.0.5", "10.0.0.9"),
				// The proxy escapes quotes in its own element (RFC 7230 quoted-pair).
				arguments("for=\"", "for=203.0.113.7;host=\"a\\\",for=6.6.6.6,x=\\\"\"", "203.0.113.7"),
				arguments("for=\"", "for=203.0.113.7;host=\"a\\\\\", for=10.0.0.5", "203.0.113.7"));
	}

	@Test
	void resolveWhenForwardedQuoteSpansLinesThenLinesAreJoinedBeforeSplitting() {
		// Joined: for=10.0.0.9;ext="a,b", for=10.0.0.8 -> two trusted elements, so the leftmost.
		// Splitting each line on its own would see the malformed element b", for=10.0.0.8 instead.
		assertThat(this.forwarded.resolve(PEER, List.of("for=10.0.0.9;ext=\"a", "b\", for=10.0.0.8")))
			.hasToString("10.0.0.9");
	}

	@Test
	void resolveWhenNoHeaderLinesThenPeer() {
		assertThat(this.xForwardedFor.resolve(PEER, List.of())).hasToString(PEER);
		assertThat(this.forwarded.resolve(PEER, List.of())).hasToString(PEER);
	}

	@ParameterizedTest
	@EnumSource(ForwardingHeader.class)
	void resolveWhenPeerUntrustedThenHeaderLinesAreNeverRead(ForwardingHeader header) {
		List<String> unreadable = new AbstractList<>() {

			@Override
			public String get(int index) {
				throw new AssertionError("header line " + index + " read for an untrusted peer");
			}

			@Override
			public int size() {
				throw new AssertionError("header lines counted for an untrusted peer");
			}

		};
		ClientIpResolver resolver = resolver(header, 32, 64);
		assertThat(resolver.resolve("198.51.100.7", unreadable)).hasToString("198.51.100.7");
		assertThat(resolver.resolve("2001:db8::1", unreadable)).hasToString("2001:db8::/64");
		assertThat(resolver.resolve("garbage", unreadable)).isSameAs(NetworkIdentity.INVALID);
		assertThat(resolver.resolve(null, unreadable)).isSameAs(NetworkIdentity.INVALID);
	}

	@Test
	void resolveRequestWhenNoProxyTrustedThenHeaderNeverLookedUp() {
		RateLimitRequest request = new HeaderlessRequest("10.0.0.2");

		assertThat(ClientIpResolver.untrusting().resolve(request)).hasToString("10.0.0.2");
		assertThat(ClientIpResolver.untrusting().resolve(new HeaderlessRequest("::ffff:10.0.0.2")))
			.hasToString("10.0.0.2");
		assertThat(ClientIpResolver.untrusting().resolve(new HeaderlessRequest("2001:db8::1")))
			.hasToString("2001:db8::/64");
	}

	@ParameterizedTest
	@EnumSource(ForwardingHeader.class)
	void resolveRequestWhenPeerTrustedThenItsForwardingHeaderCounts(ForwardingHeader header) {
		String value = (header == ForwardingHeader.FORWARDED) ? "for=203.0.113.7" : "203.0.113.7";
		TestRequest request = TestRequest.get("/").from(PEER).header(header.headerName(), value);

		assertThat(resolver(header, 32, 64).resolve(request)).hasToString("203.0.113.7");
		assertThat(ClientIpResolver.untrusting().resolve(request)).hasToString(PEER);
	}

	@ParameterizedTest
	@EnumSource(ForwardingHeader.class)
	void resolveWhenSpoofBeyondThirtyTwoTrustedHopsThenSpoofIsNeverUsed(ForwardingHeader header) {
		ClientIpResolver resolver = resolver(header, 32, 64);
		List<String> nodes = new ArrayList<>();
		nodes.add("198.51.100.66");
		for (int hop = 1; hop <= 32; hop++) {
			nodes.add("10.0.1." + hop);
		}
		// Exactly 32 trusted hops fill the window: the leftmost read is 10.0.1.1, never the spoof.
		assertThat(resolver.resolve(PEER, List.of(join(header, nodes)))).hasToString("10.0.1.1");
		// With garbage beyond the window too, nothing changes.
		nodes.add(0, "garbage");
		assertThat(resolver.resolve(PEER, List.of(join(header, nodes)))).hasToString("10.0.1.1");
		// One trusted hop fewer and the same value is inside the window, and is the client.
		nodes.remove(nodes.size() - 1);
		assertThat(resolver.resolve(PEER, List.of(join(header, nodes)))).hasToString("198.51.100.66");
	}

	@ParameterizedTest
	@EnumSource(ForwardingHeader.class)
	void resolveWhenWindowSpansLinesThenCountsElementsNotLines(ForwardingHeader header) {
		ClientIpResolver resolver = resolver(header, 3, 64);
		List<String> lines = List.of(join(header, List.of("198.51.100.66", "10.0.0.7")),
				join(header, List.of("10.0.0.8")), "", join(header, List.of("10.0.0.9")));
		assertThat(resolver.resolve(PEER, lines)).hasToString("10.0.0.7");
		assertThat(resolver(header, 4, 64).resolve(PEER, lines)).hasToString("198.51.100.66");
	}

	@Test
	void resolveWhenMaxElementsIsOneThenOnlyRightmostIsRead() {
		ClientIpResolver resolver = resolver(ForwardingHeader.X_FORWARDED_FOR, 1, 64);
		assertThat(resolver.resolve(PEER, List.of("203.0.113.7, 10.0.0.9"))).hasToString("10.0.0.9");
		assertThat(resolver.resolve(PEER, List.of("203.0.113.7, garbage"))).hasToString(PEER);
		assertThat(resolver.resolve(PEER, List.of("10.0.0.9, 203.0.113.7"))).hasToString("203.0.113.7");
	}

	@ParameterizedTest(name = "[{index}] /{0}: {1} -> {2}")
	@CsvSource(delimiter = '|', textBlock = """
			48  | 2001:db8:a:12:aaaa:bbbb:cccc:dddd   | 2001:db8:a::/48
			56  | 2001:db8:a:12ff:aaaa:bbbb:cccc:dddd | 2001:db8:a:1200::/56
			128 | 2001:db8:a:12:aaaa:bbbb:cccc:dddd   | 2001:db8:a:12:aaaa:bbbb:cccc:dddd/128
			128 | 2001:db8::1                         | 2001:db8::1/128
			1   | 2001:db8::1                         | ::/1
			1   | fe80::1                             | 8000::/1
			48  | 203.0.113.7                         | 203.0.113.7
			""")
	void resolveWhenCustomIpv6PrefixThenKeyMaskedToIt(int prefixLength, String client, String key) {
		ClientIpResolver resolver = resolver(ForwardingHeader.X_FORWARDED_FOR, 32, prefixLength);
		assertThat(resolver.resolve(PEER, List.of(client))).hasToString(key);
		assertThat(resolver.resolve(client, List.of())).hasToString(key);
	}

	@Test
	void resolveWhenIpv6PrefixIsWideThenTrustStillUsesFullAddress() {
		// fd00::/8 and fe00::1 share the same /1 key, but only the full address decides trust.
		ClientIpResolver resolver = resolver(ForwardingHeader.X_FORWARDED_FOR, 32, 1);
		assertThat(resolver.resolve("fe00::1", List.of("203.0.113.7"))).hasToString("8000::/1");
		assertThat(resolver.resolve("fd00::1", List.of("203.0.113.7"))).hasToString("203.0.113.7");
	}

	@Test
	void untrustingWhenAnyPeerThenHeadersIgnored() {
		ClientIpResolver resolver = ClientIpResolver.untrusting();
		assertThat(resolver.header()).isEqualTo(ForwardingHeader.X_FORWARDED_FOR);
		assertThat(resolver.resolve("10.0.0.2", List.of("203.0.113.7"))).hasToString("10.0.0.2");
		assertThat(resolver.resolve("127.0.0.1", List.of("203.0.113.7"))).hasToString("127.0.0.1");
		assertThat(resolver.resolve("2001:db8:a:12:1:2:3:4", List.of("203.0.113.7"))).hasToString("2001:db8:a:12::/64");
	}

	@Test
	void headerWhenConfiguredThenReturnsIt() {
		assertThat(this.forwarded.header()).isEqualTo(ForwardingHeader.FORWARDED);
		assertThat(this.forwarded.header().headerName()).isEqualTo("Forwarded");
		assertThat(this.xForwardedFor.header().headerName()).isEqualTo("X-Forwarded-For");
	}

	@Test
	void constructorWhenMaxElementsBelowOneThenThrowsNamingValue() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ClientIpResolver(TRUSTED, ForwardingHeader.X_FORWARDED_FOR, 0, 64))
			.withMessage("maxElements must be at least 1 but was 0");
	}

	@Test
	void constructorWhenIpv6PrefixLengthOutOfRangeThenThrowsNamingValue() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ClientIpResolver(TRUSTED, ForwardingHeader.X_FORWARDED_FOR, 32, 0))
			.withMessage("ipv6PrefixLength must be between 1 and 128 but was 0");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ClientIpResolver(TRUSTED, ForwardingHeader.X_FORWARDED_FOR, 32, 129))
			.withMessage("ipv6PrefixLength must be between 1 and 128 but was 129");
	}

	@Test
	void constructorWhenNullsThenThrows() {
		List<IpRange> withNull = new ArrayList<>(TRUSTED);
		withNull.add(null);
		assertThatNullPointerException()
			.isThrownBy(() -> new ClientIpResolver(withNull, ForwardingHeader.X_FORWARDED_FOR, 32, 64))
			.withMessage("trustedProxies must not contain null: [10.0.0.0/8, fd00::/8, null]");
		assertThatNullPointerException().isThrownBy(() -> new ClientIpResolver(TRUSTED, null, 32, 64))
			.withMessage("header must not be null");
	}

	@Test
	void constructorWhenHugeMaxElementsThenDoesNotPreallocate() {
		ClientIpResolver resolver = resolver(ForwardingHeader.FORWARDED, Integer.MAX_VALUE, 64);
		assertThat(resolver.resolve(PEER, List.of("for=203.0.113.7, for=10.0.0.9"))).hasToString("203.0.113.7");
	}

	@Test
	void constructorWhenTrustedListChangesLaterThenResolverUnaffected() {
		List<IpRange> ranges = new ArrayList<>(TRUSTED);
		ClientIpResolver resolver = new ClientIpResolver(ranges, ForwardingHeader.X_FORWARDED_FOR, 32, 64);
		ranges.clear();
		assertThat(resolver.resolve(PEER, List.of("203.0.113.7"))).hasToString("203.0.113.7");
	}

	private static ClientIpResolver resolver(ForwardingHeader header, int maxElements, int ipv6PrefixLength) {
		return new ClientIpResolver(TRUSTED, header, maxElements, ipv6PrefixLength);
	}

	private static String join(ForwardingHeader header, List<String> nodes) {
		StringBuilder text = new StringBuilder();
		for (String node : nodes) {
			if (text.length() > 0) {
				text.append(", ");
			}
			text.append((header == ForwardingHeader.FORWARDED && !node.equals("garbage")) ? "for=" + node : node);
		}
		return text.toString();
	}

	/**
	 * A request whose headers must not be looked up.
	 */
	private record HeaderlessRequest(String remoteAddress) implements RateLimitRequest {

		@Override
		public String method() {
			return "GET";
		}

		@Override
		public String path() {
			return "/";
		}

		@Override
		public List<String> headers(String name) {
			throw new AssertionError(name + " looked up although no proxy is trusted");
		}

	}

}
