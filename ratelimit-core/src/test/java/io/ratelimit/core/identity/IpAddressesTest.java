package io.ratelimit.core.identity;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link IpAddresses}.
 */
class IpAddressesTest {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			0.0.0.0         | 0   | 0   | 0   | 0
			255.255.255.255 | 255 | 255 | 255 | 255
			192.0.2.1       | 192 | 0   | 2   | 1
			10.0.100.9      | 10  | 0   | 100 | 9
			""")
	void parseWhenStrictIpv4ThenFourBytes(String text, int a, int b, int c, int d) {
		assertThat(IpAddresses.parse(text)).containsExactly((byte) a, (byte) b, (byte) c, (byte) d);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "01.2.3.4", "1.2.3.04", "00.0.0.0", "1.2.3", "1.2", "1", "2130706433", "1.2.3.4.5",
			" 1.2.3.4", "1.2.3.4 ", "1.2.3.4\n", "256.1.1.1", "1.2.3.256", "1.2.3.1000", "1.2.3.-1", "+1.2.3.4",
			"1..2.3", "1.2.3.", ".1.2.3", "1.2.3.4/8", "0x7f.0.0.1", "0x7f000001", "017700000001", "127.1",
			"\uff11.2.3.4", "1.2.3.\u0664", "localhost", "example.com", "1.2.3.4.example.com", "1,2,3,4" })
	void parseWhenNotStrictIpv4ThenNull(String text) {
		assertThat(IpAddresses.parse(text)).isNull();
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			::                                          | ::
			::1                                         | ::1
			1::                                         | 1::
			2001:db8::1                                 | 2001:db8::1
			2001:DB8::A:b                               | 2001:db8::a:b
			2001:0db8:0000:0000:0000:0000:0000:0001     | 2001:db8::1
			1:2:3:4:5:6:7:8                             | 1:2:3:4:5:6:7:8
			1:2:3:4:5:6:7::                             | 1:2:3:4:5:6:7:0
			::2:3:4:5:6:7:8                             | 0:2:3:4:5:6:7:8
			1:0:0:2:0:0:0:3                             | 1:0:0:2::3
			1:0:0:2:0:0:3:4                             | 1::2:0:0:3:4
			2001:db8:0:1:1:1:1:1                        | 2001:db8:0:1:1:1:1:1
			fe80::1:2                                   | fe80::1:2
			::1.2.3.4                                   | ::102:304
			64:ff9b::192.0.2.33                         | 64:ff9b::c000:221
			1:2:3:4:5:6:192.0.2.33                      | 1:2:3:4:5:6:c000:221
			ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff     | ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff
			""")
	void parseWhenIpv6ThenSixteenBytesFormattedCanonically(String text, String canonical) {
		byte[] address = IpAddresses.parse(text);
		assertThat(address).hasSize(16);
		assertThat(IpAddresses.format(address)).isEqualTo(canonical);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			::ffff:203.0.113.7                              | 203.0.113.7
			::FFFF:203.0.113.7                              | 203.0.113.7
			0:0:0:0:0:ffff:203.0.113.7                      | 203.0.113.7
			::ffff:cb00:7107                                | 203.0.113.7
			0000:0000:0000:0000:0000:ffff:255.255.255.255   | 255.255.255.255
			""")
	void parseWhenIpv4MappedThenFourBytes(String text, String ipv4) {
		byte[] address = IpAddresses.parse(text);
		assertThat(address).hasSize(4);
		assertThat(IpAddresses.format(address)).isEqualTo(ipv4);
	}

	@ParameterizedTest
	@ValueSource(strings = { ":", "1:", ":1", ":::", "1:::2", "1::2::3", ":1::", "::1:", "1::2:", "1:2:3:4:5:6:7",
			"1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8", "1:2:3:4::5:6:7:8", "12345::", "::12345",
			"g::1", "::-1", "fe80::1%eth0", "fe80::1%25eth0", "[::1]", "[::1]:80", "::1 ", " ::1", "2001:db8::/32",
			"::1.2.3", "::01.2.3.4", "::256.1.1.1", "1.2.3.4::", "::1.2.3.4:5", "::1.2.3.4.5", "1:2:3:4:5:6:7:1.2.3.4",
			"1.2.3.4::1", "::ffff:1.2.3.4.5", "::ffff:1.2.3", "\uff11::1", "1::\u0661", "2001:db8::1\u0000",
			"0000:0000:0000:0000:0000:0000:0000:0000:0000", "00000000000000000000000000000000000000000000::1" })
	void parseWhenNotRfc4291TextThenNull(String text) {
		assertThat(IpAddresses.parse(text)).isNull();
	}

	@Test
	void parseWhenRangeThenReadsOnlyThatRange() {
		String text = "[2001:db8::1]:80,1.2.3.4";
		assertThat(IpAddresses.format(IpAddresses.parse(text, 1, 12))).isEqualTo("2001:db8::1");
		assertThat(IpAddresses.format(IpAddresses.parse(text, 17, 24))).isEqualTo("1.2.3.4");
		assertThat(IpAddresses.parse(text, 17, 23)).isNull();
		assertThat(IpAddresses.parse(text, 0, 12)).isNull();
		assertThat(IpAddresses.parse(text, 5, 5)).isNull();
	}

	@Test
	void formatWhenIpv4MappedSixteenBytesThenMixedNotation() {
		byte[] mapped = new byte[16];
		mapped[10] = (byte) 0xff;
		mapped[11] = (byte) 0xff;
		mapped[12] = (byte) 192;
		mapped[15] = 1;
		assertThat(IpAddresses.format(mapped)).isEqualTo("::ffff:192.0.0.1");
	}

	@Test
	void formatWhenWrongLengthThenThrowsNamingLength() {
		assertThatIllegalArgumentException().isThrownBy(() -> IpAddresses.format(new byte[5]))
			.withMessage("address must have 4 or 16 bytes but had 5");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			203.0.113.255                           | 0   | 0.0.0.0
			203.0.113.255                           | 8   | 203.0.0.0
			172.31.255.255                          | 12  | 172.16.0.0
			203.0.113.255                           | 31  | 203.0.113.254
			203.0.113.255                           | 32  | 203.0.113.255
			2001:db8:a:12:aaaa:bbbb:cccc:dddd       | 64  | 2001:db8:a:12::
			2001:db8:a:12:aaaa:bbbb:cccc:dddd       | 48  | 2001:db8:a::
			2001:db8:a:12:aaaa:bbbb:cccc:dddd       | 60  | 2001:db8:a:10::
			2001:db8:a:ffff:aaaa:bbbb:cccc:dddd     | 57  | 2001:db8:a:ff80::
			2001:db8:a:12:aaaa:bbbb:cccc:dddd       | 127 | 2001:db8:a:12:aaaa:bbbb:cccc:dddc
			2001:db8:a:12:aaaa:bbbb:cccc:dddd       | 128 | 2001:db8:a:12:aaaa:bbbb:cccc:dddd
			2001:db8:a:12:aaaa:bbbb:cccc:dddd       | 0   | ::
			""")
	void maskWhenPrefixThenClearsEveryLaterBit(String text, int prefixLength, String expected) {
		byte[] address = IpAddresses.parse(text);
		byte[] copy = address.clone();
		assertThat(IpAddresses.format(IpAddresses.mask(address, prefixLength))).isEqualTo(expected);
		assertThat(address).isEqualTo(copy);
	}

	@Test
	void maskWhenPrefixOutOfRangeThenThrowsNamingValue() {
		assertThatIllegalArgumentException().isThrownBy(() -> IpAddresses.mask(new byte[4], 33))
			.withMessage("prefixLength must be between 0 and 32 but was 33");
		assertThatIllegalArgumentException().isThrownBy(() -> IpAddresses.mask(new byte[16], -1))
			.withMessage("prefixLength must be between 0 and 128 but was -1");
	}

}
