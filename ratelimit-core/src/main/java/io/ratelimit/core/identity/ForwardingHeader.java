package io.ratelimit.core.identity;

/**
 * The request header that trusted proxies use to pass on the address of the client they
 * serve. Exactly one is read: reading both would let a client pick whichever its proxies do
 * not overwrite.
 */
public enum ForwardingHeader {

	/**
	 * The de facto {@code X-Forwarded-For} header: a comma-separated list of addresses, each
	 * optionally with a port, the client first and each proxy appending its peer.
	 */
	X_FORWARDED_FOR("X-Forwarded-For"),

	/**
	 * The RFC 7239 {@code Forwarded} header, whose elements carry the client address in a
	 * {@code for} parameter (IPv6 and ports only inside a quoted string).
	 */
	FORWARDED("Forwarded");

	private final String headerName;

	ForwardingHeader(String headerName) {
		this.headerName = headerName;
	}

	/**
	 * Return the name of the header as sent on the wire.
	 * @return the header name, such as {@code X-Forwarded-For}
	 */
	public String headerName() {
		return this.headerName;
	}

}
