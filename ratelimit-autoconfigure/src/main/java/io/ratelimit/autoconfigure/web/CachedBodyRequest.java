package io.ratelimit.autoconfigure.web;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.jspecify.annotations.Nullable;

/**
 * A request whose body the limiter may read ahead of the application, up to a limit: the
 * bytes read are kept and replayed first, followed by whatever the client sends after
 * them, so the application always receives the whole body. Nothing is read unless
 * {@link #body(int)} is called.
 */
public class CachedBodyRequest extends HttpServletRequestWrapper {

	private byte @Nullable [] prefix;

	private @Nullable ServletInputStream stream;

	public CachedBodyRequest(HttpServletRequest request) {
		super(request);
	}

	/**
	 * Reads the body ahead of the application.
	 * @param limit the most bytes to read
	 * @return the whole body, or {@code null} if it is longer than the limit
	 * @throws IOException if the client's body cannot be read (it disconnected)
	 */
	public byte @Nullable [] body(int limit) throws IOException {
		if (this.prefix == null) {
			if (this.stream != null) {
				return null; // The application reads the body itself already.
			}
			this.prefix = super.getInputStream().readNBytes(limit + 1);
		}
		return (this.prefix.length <= limit) ? this.prefix : null;
	}

	/**
	 * Returns the request to hand on to the application: this one once the body has been
	 * read through it (what was read ahead must be replayed), otherwise the request it wraps,
	 * so that the rest of the chain does not pay for a wrapper it has no use for.
	 * @return the request for the application
	 */
	public HttpServletRequest forApplication() {
		return (this.prefix != null || this.stream != null) ? this : (HttpServletRequest) getRequest();
	}

	@Override
	public ServletInputStream getInputStream() throws IOException {
		if (this.stream == null) {
			this.stream = (this.prefix != null) ? new ReplayingInputStream(this.prefix, super.getInputStream())
					: super.getInputStream();
		}
		return this.stream;
	}

	@Override
	public BufferedReader getReader() throws IOException {
		String encoding = getCharacterEncoding();
		Charset charset = (encoding != null) ? Charset.forName(encoding) : StandardCharsets.ISO_8859_1;
		return new BufferedReader(new InputStreamReader(getInputStream(), charset));
	}

	/**
	 * The bytes read ahead, then the rest of the client's body.
	 */
	private static final class ReplayingInputStream extends ServletInputStream {

		private final ByteArrayInputStream prefix;

		private final ServletInputStream rest;

		ReplayingInputStream(byte[] prefix, ServletInputStream rest) {
			this.prefix = new ByteArrayInputStream(prefix);
			this.rest = rest;
		}

		@Override
		public int read() throws IOException {
			int next = this.prefix.read();
			return (next >= 0) ? next : this.rest.read();
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			if (length == 0) {
				return 0;
			}
			int read = this.prefix.read(buffer, offset, length);
			return (read > 0) ? read : this.rest.read(buffer, offset, length);
		}

		@Override
		public boolean isFinished() {
			return this.prefix.available() == 0 && this.rest.isFinished();
		}

		@Override
		public boolean isReady() {
			return this.prefix.available() > 0 || this.rest.isReady();
		}

		@Override
		public void setReadListener(ReadListener listener) {
			this.rest.setReadListener(listener);
		}

	}

}
