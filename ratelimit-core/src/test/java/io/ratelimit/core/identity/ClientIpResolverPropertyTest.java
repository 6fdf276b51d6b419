package io.ratelimit.core.identity;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property tests for {@link ClientIpResolver}: random and hostile header content, checked
 * against rules that hold for every input. Each failure message names the seed of the
 * failing case; run with {@code -Dratelimit.test.seed=<seed>} to replay a whole run.
 */
class ClientIpResolverPropertyTest {

	private static final int ITERATIONS = 20_000;

	private static final List<IpRange> TRUSTED = List.of(IpRange.parse("10.0.0.0/8"), IpRange.parse("fd00::/8"));

	private static final String[] FRAGMENTS = { ",", ", ", ";", "=", "for=", "For=", "by=", "proto=http", "\"", "\\",
			"[", "]", ":", "::", ".", " ", "\t", "_", "_hidden", "unknown", "%eth0", ":80", ":65535", ":123456",
			"::ffff:", "fd00::", "2001:db8::", "10.0.0.", "0", "00", "255", "256", "2130706433", "localhost", "\r\n",
			"\u0000", "\u00e9", "\uff11" };

	private final long seed = Long.getLong("ratelimit.test.seed", new SplittableRandom().nextLong());

	@Test
	void resolveWhenPeerUntrustedThenNoHeaderContentChangesIdentity() {
		SplittableRandom run = new SplittableRandom(this.seed);
		for (int i = 0; i < ITERATIONS; i++) {
			long caseSeed = run.nextLong();
			SplittableRandom random = new SplittableRandom(caseSeed);
			String[] peer = untrustedPeer(random);
			ForwardingHeader header = random.nextBoolean() ? ForwardingHeader.X_FORWARDED_FOR
					: ForwardingHeader.FORWARDED;
			List<String> lines = randomLines(random);
			NetworkIdentity identity = new ClientIpResolver(TRUSTED, header, 1 + random.nextInt(40), 64)
				.resolve(peer[0], lines);
			assertThat(identity).as("case seed %d (run seed %d): peer %s, %s %s", caseSeed, this.seed, peer[0],
					header, lines)
				.isEqualTo(new NetworkIdentity(peer[1]));
		}
	}

	@Test
	void resolveWhenPeerTrustedThenIdentityIsPeerOrAnAddressWrittenInHeader() {
		SplittableRandom run = new SplittableRandom(this.seed);
		for (int i = 0; i < ITERATIONS; i++) {
			long caseSeed = run.nextLong();
			SplittableRandom random = new SplittableRandom(caseSeed);
			String peer = random.nextBoolean() ? "10.0.0.2" : "fd00::2";
			String peerKey = peer.equals("10.0.0.2") ? "10.0.0.2" : "fd00::/64";
			ForwardingHeader header = random.nextBoolean() ? ForwardingHeader.X_FORWARDED_FOR
					: ForwardingHeader.FORWARDED;
			List<String> lines = randomLines(random);
			NetworkIdentity identity = new ClientIpResolver(TRUSTED, header, 1 + random.nextInt(40), 64).resolve(peer,
					lines);
			Set<String> allowed = keysOfAddressesWrittenIn(lines);
			allowed.add(peerKey);
			assertThat(identity.key()).as("case seed %d (run seed %d): %s %s", caseSeed, this.seed, header, lines)
				.isNotEqualTo(NetworkIdentity.INVALID.key())
				.isIn(allowed);
		}
	}

	@Test
	void resolveWhenTrustedProxiesAppendClientThenNothingClientSentToTheLeftMatters() {
		SplittableRandom run = new SplittableRandom(this.seed);
		ClientIpResolver resolver = new ClientIpResolver(TRUSTED, ForwardingHeader.X_FORWARDED_FOR, 32, 64);
		for (int i = 0; i < ITERATIONS; i++) {
			long caseSeed = run.nextLong();
			SplittableRandom random = new SplittableRandom(caseSeed);
			String[] client = untrustedPeer(random);
			List<String> lines = randomLines(random);
			// The first proxy appends the client's address, the next ones their peers' addresses.
			String appended = client[0] + ", 10.0.0." + random.nextInt(256) + ", 10.0.1." + random.nextInt(256);
			if (lines.isEmpty() || random.nextBoolean()) {
				lines.add(appended);
			}
			else {
				lines.set(lines.size() - 1, lines.get(lines.size() - 1) + "," + appended);
			}
			assertThat(resolver.resolve("10.0.0.2", lines))
				.as("case seed %d (run seed %d): %s", caseSeed, this.seed, lines)
				.isEqualTo(new NetworkIdentity(client[1]));
		}
	}

	/** @return the peer text and its expected key, never in a trusted range */
	private static String[] untrustedPeer(SplittableRandom random) {
		switch (random.nextInt(4)) {
			case 0: {
				// IPv4 outside 10.0.0.0/8.
				int first = random.nextInt(255);
				first = (first >= 10) ? first + 1 : first;
				String address = first + "." + random.nextInt(256) + "." + random.nextInt(256) + "."
						+ random.nextInt(256);
				return new String[] { address, address };
			}
			case 1: {
				String address = "198.51.100." + random.nextInt(256);
				return new String[] { "::ffff:" + address, address };
			}
			case 2: {
				String prefix = "2001:db8:" + Integer.toHexString(random.nextInt(0x10000)) + ":"
						+ Integer.toHexString(1 + random.nextInt(0xffff));
				return new String[] { prefix + ":" + Integer.toHexString(random.nextInt(0x10000)) + "::1",
						prefix + "::/64" };
			}
			default: {
				// Just outside fd00::/8, in full form with uppercase digits as a server might report it.
				return new String[] { "FC00:0:0:0:0:0:0:" + Integer.toHexString(random.nextInt(0x10000)).toUpperCase(),
						"fc00::/64" };
			}
		}
	}

	private static List<String> randomLines(SplittableRandom random) {
		int count = random.nextInt(4);
		List<String> lines = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			lines.add(randomLine(random));
		}
		return lines;
	}

	private static String randomLine(SplittableRandom random) {
		int length = random.nextInt(60);
		StringBuilder line = new StringBuilder();
		switch (random.nextInt(3)) {
			case 0:
				// Random bytes, as a server decoding headers as ISO-8859-1 would pass them on.
				for (int i = 0; i < length; i++) {
					line.append((char) random.nextInt(256));
				}
				break;
			case 1:
				for (int i = 0; i < length; i++) {
					line.append((char) (0x20 + random.nextInt(0x5f)));
				}
				break;
			default:
				for (int i = 0; i < length / 3; i++) {
					line.append(hostilePiece(random));
				}
		}
		return line.toString();
	}

	private static String hostilePiece(SplittableRandom random) {
		switch (random.nextInt(6)) {
			case 0:
				return (random.nextBoolean() ? "10" : Integer.toString(random.nextInt(300))) + "." + random.nextInt(300)
						+ "." + random.nextInt(300) + "." + random.nextInt(300);
			case 1:
				return (random.nextBoolean() ? "fd00" : "2001:db8") + "::" + Integer.toHexString(random.nextInt(0x10000));
			case 2:
				return "::ffff:" + (random.nextBoolean() ? "10" : "203") + ".0.113." + random.nextInt(256);
			case 3:
				return "\"[" + (random.nextBoolean() ? "fd00::" : "2001:db8:1::") + random.nextInt(10) + "]"
						+ (random.nextBoolean() ? ":" + random.nextInt(70000) : "") + "\"";
			default:
				return FRAGMENTS[random.nextInt(FRAGMENTS.length)];
		}
	}

	/**
	 * The keys of every address literal written anywhere in the lines: every substring, up to
	 * the longest address text, of every run of characters that can occur in one.
	 */
	private static Set<String> keysOfAddressesWrittenIn(List<String> lines) {
		Set<String> keys = new HashSet<>();
		for (String line : lines) {
			int runStart = 0;
			for (int i = 0; i <= line.length(); i++) {
				if (i < line.length() && isAddressChar(line.charAt(i))) {
					continue;
				}
				for (int start = runStart; start < i; start++) {
					for (int end = start + 1; end <= Math.min(i, start + 45); end++) {
						byte[] address = IpAddresses.parse(line, start, end);
						if (address != null) {
							keys.add((address.length == 4) ? IpAddresses.format(address)
									: IpAddresses.format(IpAddresses.mask(address, 64)) + "/64");
						}
					}
				}
				runStart = i + 1;
			}
		}
		return keys;
	}

	private static boolean isAddressChar(char c) {
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
	}

}
