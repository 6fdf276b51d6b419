package io.ratelimit.autoconfigure.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.jspecify.annotations.Nullable;

/**
 * The response of a login attempt, body held back so that a device token can still go in
 * its headers once the outcome is known. Held up to a limit: a body past it is sent on as
 * it comes, and the attempt then earns no token, so a large login page costs no more
 * memory than the limit. A redirect or an error commits the response at once, so the
 * attempt is settled first, with the status it sends, whichever of the Servlet API's
 * methods sends it.
 * <p>
 * Only the body is held: headers, including {@code Content-Length}, go to the response
 * as the application sets them, which is safe because the body is never changed, only
 * delayed.
 */
final class LoginResponse extends HttpServletResponseWrapper {

	/** Settles an attempt with the status the application answered. */
	@FunctionalInterface
	interface Settlement {

		/**
		 * @param status the status of the answer
		 * @param tokenDeliverable whether a device token can still reach the client
		 */
		void settle(int status, boolean tokenDeliverable);

	}

	private final HttpServletResponse response;

	private final int limit;

	private final Settlement settlement;

	private final ByteArrayOutputStream held = new ByteArrayOutputStream();

	private boolean holding = true;

	private boolean tokenDeliverable = true;

	private boolean settled;

	private @Nullable ServletOutputStream stream;

	private @Nullable PrintWriter writer;

	LoginResponse(HttpServletResponse response, int limit, Settlement settlement) {
		super(response);
		this.response = response;
		this.limit = limit;
		this.settlement = settlement;
	}

	/**
	 * Settles the attempt, once.
	 * @param status the status the application answered
	 */
	void settle(int status) {
		if (!this.settled) {
			this.settled = true;
			this.settlement.settle(status, this.tokenDeliverable && !this.response.isCommitted());
		}
	}

	/**
	 * Stops holding the body: what was held is written to the response, and whatever the
	 * application writes from now on goes straight there. Once the body has started, no
	 * header can be added, so a later settlement earns no token.
	 */
	void release() throws IOException {
		if (!this.holding) {
			return;
		}
		this.holding = false;
		this.tokenDeliverable = false;
		if (this.writer != null) {
			this.writer.flush();
		}
		if (this.held.size() > 0) {
			this.held.writeTo(this.response.getOutputStream());
			this.held.reset();
		}
	}

	@Override
	public void sendRedirect(String location) throws IOException {
		settleDiscardingBody(SC_FOUND);
		super.sendRedirect(location);
	}

	@Override
	public void sendRedirect(String location, boolean clearBuffer) throws IOException {
		settleDiscardingBody(SC_FOUND);
		super.sendRedirect(location, clearBuffer);
	}

	@Override
	public void sendRedirect(String location, int sc) throws IOException {
		settleDiscardingBody(sc);
		super.sendRedirect(location, sc);
	}

	@Override
	public void sendRedirect(String location, int sc, boolean clearBuffer) throws IOException {
		settleDiscardingBody(sc);
		super.sendRedirect(location, sc, clearBuffer);
	}

	@Override
	public void sendError(int sc) throws IOException {
		settleDiscardingBody(sc);
		super.sendError(sc);
	}

	@Override
	public void sendError(int sc, String msg) throws IOException {
		settleDiscardingBody(sc);
		super.sendError(sc, msg);
	}

	/**
	 * A redirect or an error replaces the body (the Servlet API clears the buffer for both),
	 * so what was held is dropped rather than sent ahead of it.
	 */
	private void settleDiscardingBody(int status) {
		settle(status);
		this.held.reset();
		this.holding = false;
	}

	@Override
	public ServletOutputStream getOutputStream() throws IOException {
		if (this.stream == null) {
			this.stream = new HeldOutputStream();
		}
		return this.stream;
	}

	@Override
	public PrintWriter getWriter() throws IOException {
		if (this.writer == null) {
			String encoding = getCharacterEncoding();
			Charset charset = (encoding != null) ? Charset.forName(encoding) : Charset.forName("ISO-8859-1");
			this.writer = new PrintWriter(new OutputStreamWriter(getOutputStream(), charset), true) {

				// Every write reaches the held stream at once, so the limit sees every byte.
				@Override
				public void write(char[] buffer, int offset, int length) {
					super.write(buffer, offset, length);
					super.flush();
				}

				@Override
				public void write(String text, int offset, int length) {
					super.write(text, offset, length);
					super.flush();
				}

				@Override
				public void write(int character) {
					super.write(character);
					super.flush();
				}

			};
		}
		return this.writer;
	}

	@Override
	public void flushBuffer() throws IOException {
		if (!this.holding) {
			super.flushBuffer();
		}
	}

	@Override
	public boolean isCommitted() {
		return this.response.isCommitted();
	}

	@Override
	public void resetBuffer() {
		this.held.reset();
		super.resetBuffer();
	}

	@Override
	public void reset() {
		this.held.reset();
		super.reset();
	}

	private void write(byte[] bytes, int offset, int length) throws IOException {
		if (this.holding && this.held.size() + length > this.limit) {
			release();
		}
		if (this.holding) {
			this.held.write(bytes, offset, length);
		}
		else {
			this.response.getOutputStream().write(bytes, offset, length);
		}
	}

	private final class HeldOutputStream extends ServletOutputStream {

		@Override
		public void write(int b) throws IOException {
			LoginResponse.this.write(new byte[] { (byte) b }, 0, 1);
		}

		@Override
		public void write(byte[] bytes, int offset, int length) throws IOException {
			LoginResponse.this.write(bytes, offset, length);
		}

		@Override
		public void flush() throws IOException {
			if (!LoginResponse.this.holding) {
				LoginResponse.this.response.getOutputStream().flush();
			}
		}

		@Override
		public boolean isReady() {
			return LoginResponse.this.holding || isReadyUnderneath();
		}

		@Override
		public void setWriteListener(WriteListener listener) {
			try {
				LoginResponse.this.response.getOutputStream().setWriteListener(listener);
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}

		private boolean isReadyUnderneath() {
			try {
				return LoginResponse.this.response.getOutputStream().isReady();
			}
			catch (IOException ex) {
				return false;
			}
		}

	}

}
