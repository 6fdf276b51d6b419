package io.ratelimit.core.identity;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * Tests for {@link IpRange}.
 */
class IpRangeTest {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			10.0.0.0/8                  | 10.0.0.0/8                | 8   | false
			0.0.0.0/0                   | 0.0.0.0/0                 | 0   | false
			192.0.2.1                   | 192.0.2.1/32              | 32  | false
			192.0.2.1/32                | 192.0.2.1/32              | 32  | false
			fd00::/8                    | fd00::/8                  | 8   | true
			2001:DB8:0:0::/32           | 2001:db8::/32             | 32  | true
			2001:0db8:0000::1           | 2001:db8::1/128           | 128 | true
			::/0                        | ::/0                      | 0   | true
			::ffff:10.0.0.0/104         | 10.0.0.0/8                | 8   | false
			::ffff:10.0.0.1             | 10.0.0.1/32               | 32  | false
			::ffff:0:0/96               | 0.0.0.0/0                 | 0   | false
			""")
	void parseWhenValidThenCanonical(String cidr, String canonical, int prefixLength, boolean ipv6) {
		IpRange range = IpRange.parse(cidr);
		assertThat(range).hasToString(canonical);
		assertThat(range.prefixLength()).isEqualTo(prefixLength);
		assertThat(range.isIpv6()).isEqualTo(ipv6);
		assertThat(IpRange.parse(range.toString())).isEqualTo(range);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
			10.0.0.0/33             | prefix length must be between 0 and 32
			::/129                  | prefix length must be between 0 and 128
			::ffff:10.0.0.0/8       | prefix length must be between 96 and 128 for an IPv4-mapped address
			::ffff:10.0.0.0/129     | prefix length must be between 96 and 128 for an IPv4-mapped address
			10.0.0.0/-1             | prefix length '-1' must be a decimal number without sign or leading zeros
			10.0.0.0/+8             | prefix length '+8' must be a decimal number without sign or leading zeros
			10.0.0.0/08             | prefix length '08' must be a decimal number without sign or leading zeros
			10.0.0.0/8/8            | prefix length '8/8' must be a decimal number without sign or leading zeros
			10.0.0.0/ 8             | prefix length ' 8' must be a decimal number without sign or leading zeros
			10.0.0.0/1000           | prefix length '1000' must be a decimal number without sign or leading zeros
			10.0.0.0/               | prefix length '' must be a decimal number without sign or leading zeros
			10.0.0.1/8              | the address has bits set after the prefix length; write '10.0.0.0/8' for the whole network
			2001:db8::1/32          | the address has bits set after the prefix length; write '2001:db8::/32' for the whole network
			::ffff:10.0.0.1/104     | the address has bits set after the prefix length; write '10.0.0.0/8' for the whole network
			10.0.0/8                | '10.0.0' is not an IPv4 or IPv6 address literal (host names are not allowed)
			010.0.0.0/8             | '010.0.0.0' is not an IPv4 or IPv6 address literal (host names are not allowed)
			localhost/32            | 'localhost' is not an IPv4 or IPv6 address literal (host names are not allowed)
			proxy.example.com       | 'proxy.example.com' is not an IPv4 or IPv6 address literal (host names are not allowed)
			[::1]/128               | '[::1]' is not an IPv4 or IPv6 address literal (host names are not allowed)
			fe80::1%eth0/64         | 'fe80::1%eth0' is not an IPv4 or IPv6 address literal (host names are not allowed)
			/8                      | '' is not an IPv4 or IPv6 address literal (host names are not allowed)
			""")
	void parseWhenInvalidThenThrowsNamingValueAndReason(String cidr, String reason) {
		assertThatIllegalArgumentException().isThrownBy(() -> IpRange.parse(cidr))
			.withMessage("Invalid trusted proxy range '%s': %s", cidr, reason);
	}

	@Test
	void parseWhenBlankThenThrows() {
		assertThatIllegalArgumentException().isThrownBy(() -> IpRange.parse(""))
			.withMessage("Invalid trusted proxy range '': '' is not an IPv4 or IPv6 address literal "
					+ "(host names are not allowed)");
		assertThatIllegalArgumentException().isThrownBy(() -> IpRange.parse(" 10.0.0.0/8"))
			.withMessageStartingWith("Invalid trusted proxy range ' 10.0.0.0/8': ' 10.0.0.0' is not");
	}

	@Test
	void parseWhenNullThenThrows() {
		assertThatNullPointerException().isThrownBy(() -> IpRange.parse(null)).withMessage("cidr must not be null");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			10.0.0.0/8          | 10.0.0.0                                  | true
			10.0.0.0/8          | 10.255.255.255                            | true
			10.0.0.0/8          | 9.255.255.255                             | false
			10.0.0.0/8          | 11.0.0.0                                  | false
			172.16.0.0/12       | 172.16.0.0                                | true
			172.16.0.0/12       | 172.31.255.255                            | true
			172.16.0.0/12       | 172.15.255.255                            | false
			172.16.0.0/12       | 172.32.0.0                                | false
			192.0.2.1           | 192.0.2.1                                 | true
			192.0.2.1           | 192.0.2.0                                 | false
			192.0.2.1           | 192.0.2.2                                 | false
			0.0.0.0/0           | 255.255.255.255                           | true
			0.0.0.0/0           | ::                                        | false
			10.0.0.0/8          | ::ffff:10.1.2.3                           | true
			::ffff:10.0.0.0/104 | 10.1.2.3                                  | true
			fd00::/8            | fd00::                                    | true
			fd00::/8            | fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff   | true
			fd00::/8            | fc00::1                                   | false
			fd00::/8            | fe00::                                    | false
			fd00::/8            | 253.0.0.1                                 | false
			::/0                | 2001:db8::1                               | true
			::/0                | 0.0.0.0                                   | false
			::/0                | ::ffff:1.2.3.4                            | false
			2001:db8::/127      | 2001:db8::1                               | true
			2001:db8::/127      | 2001:db8::2                               | false
			2001:db8::1         | 2001:db8::1                               | true
			2001:db8::1         | 2001:db8::                                | false
			2001:db8:8000::/33  | 2001:db8:ffff::                           | true
			2001:db8:8000::/33  | 2001:db8:7fff::                           | false
			""")
	void containsWhenAddressThenTrueOnlyInsideRange(String cidr, String address, boolean contained) {
		assertThat(IpRange.parse(cidr).contains(IpAddresses.parse(address))).isEqualTo(contained);
	}

	@Test
	void containsWhenWrongLengthThenThrowsNamingLength() {
		assertThatIllegalArgumentException().isThrownBy(() -> IpRange.parse("10.0.0.0/8").contains(new byte[6]))
			.withMessage("address must have 4 or 16 bytes but had 6");
	}

	@Test
	void equalsWhenSameNetworkAndPrefixThenEqual() {
		assertThat(IpRange.parse("10.0.0.0/8")).isEqualTo(IpRange.parse("::ffff:10.0.0.0/104"))
			.hasSameHashCodeAs(IpRange.parse("::ffff:10.0.0.0/104"));
		assertThat(IpRange.parse("2001:db8::/32")).isEqualTo(IpRange.parse("2001:DB8:0::/32"))
			.hasSameHashCodeAs(IpRange.parse("2001:DB8:0::/32"));
		assertThat(IpRange.parse("10.0.0.0/8")).isNotEqualTo(IpRange.parse("10.0.0.0/9"));
		assertThat(IpRange.parse("0.0.0.0/0")).isNotEqualTo(IpRange.parse("::/0"));
		assertThat(IpRange.parse("10.0.0.0/8")).isNotEqualTo("10.0.0.0/8");
	}

}
