package io.ratelimit.core.identity;

import java.util.Arrays;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * An immutable CIDR range of IPv4 or IPv6 addresses, such as {@code 10.0.0.0/8} or
 * {@code fd00::/8}, used to say which peers are trusted proxies.
 * <p>
 * Parsing is strict: the address must be a literal (never a host name, so no DNS lookup can
 * happen), the prefix length must fit the address family, and the address must not have bits
 * set after the prefix, because {@code 10.0.0.1/8} is more likely a typo for
 * {@code 10.0.0.1/32} than a wish to trust sixteen million addresses. An IPv4-mapped range
 * such as {@code ::ffff:10.0.0.0/104} is the IPv4 range {@code 10.0.0.0/8}, because mapped
 * addresses are always matched as IPv4.
 * <p>
 * An IPv4 range never contains an IPv6 address and vice versa.
 */
public final class IpRange {

	private final byte[] network;

	private final int prefixLength;

	private IpRange(byte[] network, int prefixLength) {
		this.network = network;
		this.prefixLength = prefixLength;
	}

	/**
	 * Parse a CIDR range: {@code a.b.c.d/n}, {@code ipv6/n}, or a bare address meaning the
	 * single address ({@code /32} or {@code /128}).
	 * @param cidr the range text
	 * @return the range
	 * @throws IllegalArgumentException if the text is not a valid range; the message names the
	 * text and what is wrong with it
	 */
	public static IpRange parse(String cidr) {
		Objects.requireNonNull(cidr, "cidr must not be null");
		int slash = cidr.indexOf('/');
		int addressEnd = (slash >= 0) ? slash : cidr.length();
		byte[] address = IpAddresses.parse(cidr, 0, addressEnd);
		if (address == null) {
			throw invalid(cidr, "'" + cidr.substring(0, addressEnd)
					+ "' is not an IPv4 or IPv6 address literal (host names are not allowed)");
		}
		int bits = address.length * 8;
		boolean mapped = address.length == 4 && cidr.lastIndexOf(':', addressEnd) >= 0;
		int prefixLength = bits;
		if (slash >= 0) {
			prefixLength = parsePrefixLength(cidr, slash + 1);
			int min = mapped ? 96 : 0;
			int max = mapped ? 128 : bits;
			if (prefixLength < min || prefixLength > max) {
				throw invalid(cidr, "prefix length must be between " + min + " and " + max
						+ (mapped ? " for an IPv4-mapped address" : ""));
			}
			if (mapped) {
				prefixLength -= 96;
			}
		}
		byte[] network = IpAddresses.mask(address, prefixLength);
		if (!Arrays.equals(network, address)) {
			throw invalid(cidr, "the address has bits set after the prefix length; write '"
					+ IpAddresses.format(network) + "/" + prefixLength + "' for the whole network");
		}
		return new IpRange(network, prefixLength);
	}

	private static int parsePrefixLength(String cidr, int start) {
		int length = cidr.length() - start;
		boolean decimal = length >= 1 && length <= 3 && (length == 1 || cidr.charAt(start) != '0');
		int value = 0;
		for (int i = start; decimal && i < cidr.length(); i++) {
			char c = cidr.charAt(i);
			decimal = c >= '0' && c <= '9';
			value = value * 10 + (c - '0');
		}
		if (!decimal) {
			throw invalid(cidr, "prefix length '" + cidr.substring(start)
					+ "' must be a decimal number without sign or leading zeros");
		}
		return value;
	}

	private static IllegalArgumentException invalid(String cidr, String reason) {
		return new IllegalArgumentException("Invalid trusted proxy range '" + cidr + "': " + reason);
	}

	/**
	 * Return whether the address is in this range.
	 * @param address 4 (IPv4) or 16 (IPv6) address bytes, in network byte order
	 * @return whether the address belongs to this range; always {@code false} for an address
	 * of the other family
	 * @throws IllegalArgumentException if the address is neither 4 nor 16 bytes long
	 */
	public boolean contains(byte[] address) {
		if (address.length != 4 && address.length != 16) {
			throw new IllegalArgumentException("address must have 4 or 16 bytes but had " + address.length);
		}
		if (address.length != this.network.length) {
			return false;
		}
		int fullBytes = this.prefixLength / 8;
		for (int i = 0; i < fullBytes; i++) {
			if (address[i] != this.network[i]) {
				return false;
			}
		}
		int remainingBits = this.prefixLength % 8;
		if (remainingBits == 0) {
			return true;
		}
		int mask = 0xff << (8 - remainingBits);
		return (address[fullBytes] & mask) == (this.network[fullBytes] & mask);
	}

	/**
	 * Return the number of leading bits that an address must share with this range.
	 * @return the prefix length, 0-32 for IPv4 and 0-128 for IPv6
	 */
	public int prefixLength() {
		return this.prefixLength;
	}

	/**
	 * Return whether this is a range of IPv6 addresses.
	 * @return {@code true} for IPv6, {@code false} for IPv4
	 */
	public boolean isIpv6() {
		return this.network.length == 16;
	}

	@Override
	public boolean equals(@Nullable Object obj) {
		if (this == obj) {
			return true;
		}
		return obj instanceof IpRange other && this.prefixLength == other.prefixLength
				&& Arrays.equals(this.network, other.network);
	}

	@Override
	public int hashCode() {
		return 31 * Arrays.hashCode(this.network) + this.prefixLength;
	}

	/**
	 * Return the canonical CIDR text, such as {@code 10.0.0.0/8} or {@code 2001:db8::/32},
	 * which {@link #parse(String)} accepts.
	 */
	@Override
	public String toString() {
		return IpAddresses.format(this.network) + "/" + this.prefixLength;
	}

}
