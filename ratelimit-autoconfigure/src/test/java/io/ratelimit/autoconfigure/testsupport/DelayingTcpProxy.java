package io.ratelimit.autoconfigure.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * A TCP proxy on a free loopback port that delays every chunk of bytes by a one-way delay,
 * in each direction, so that a request and its answer cost two delays: the network between
 * a replica and a distant Redis, played on one machine. It can also {@linkplain #hang()
 * hang}: connections stay open and accept bytes, but nothing is forwarded either way until
 * {@link #heal()}, as in a network partition or a server stuck in a long command, the
 * failure a client only notices through its own timeouts.
 * <p>
 * Each direction of each connection has a reader and a writer thread joined by a queue. The
 * reader stamps a chunk with the time it may leave (arrival plus the delay) and goes back to
 * reading at once, so pipelined commands keep flowing and the proxy adds latency, not a
 * throughput limit; the writer forwards the chunks in arrival order when each is due.
 * Connections have threads of their own and never wait for one another. The delay may be
 * changed while connections are open (a chunk never overtakes an earlier one).
 */
public final class DelayingTcpProxy implements AutoCloseable {

	private static final int CHUNK_BYTES = 64 * 1024;

	private final String targetHost;

	private final int targetPort;

	private final ServerSocket server;

	private final AtomicInteger connections = new AtomicInteger();

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private volatile long delayNanos;

	private volatile boolean hung;

	private volatile boolean down;

	private volatile boolean closed;

	private DelayingTcpProxy(String targetHost, int targetPort, Duration delay) throws IOException {
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		delay(delay);
		this.server = new ServerSocket();
		this.server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
		Thread acceptor = new Thread(this::accept, "delaying-proxy-" + this.server.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Starts a proxy in front of a target.
	 * @param targetHost the host to forward to
	 * @param targetPort the port to forward to
	 * @param delay the one-way delay of each direction
	 * @return the running proxy
	 * @throws IOException if no port can be bound
	 */
	public static DelayingTcpProxy start(String targetHost, int targetPort, Duration delay) throws IOException {
		return new DelayingTcpProxy(Objects.requireNonNull(targetHost, "targetHost must not be null"), targetPort,
				delay);
	}

	/**
	 * Returns the loopback port clients connect to.
	 * @return the port
	 */
	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Returns a {@code redis://} URL of the proxy, for a Redis target.
	 * @return the URL
	 */
	public String redisUrl() {
		return "redis://127.0.0.1:" + port();
	}

	/**
	 * Changes the one-way delay of the chunks that arrive from now on.
	 * @param delay the delay, zero or positive
	 */
	public void delay(Duration delay) {
		if (delay.isNegative()) {
			throw new IllegalArgumentException("The delay must not be negative, but was " + delay);
		}
		this.delayNanos = delay.toNanos();
	}

	/**
	 * Stops forwarding, in both directions and on every connection, new ones included,
	 * without closing anything: clients see their commands sent and never answered.
	 */
	public void hang() {
		this.hung = true;
	}

	/**
	 * Forwards again: what arrived during the hang is delivered, in order, as TCP would
	 * after a partition heals.
	 */
	public void heal() {
		this.hung = false;
	}

	/**
	 * Goes down as a stopped server does: every open connection is closed, and new ones are
	 * closed as soon as they are accepted, until {@link #up()}.
	 */
	public void down() {
		this.down = true;
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
		}
	}

	/**
	 * Accepts and forwards connections again after {@link #down()}.
	 */
	public void up() {
		this.down = false;
	}

	/**
	 * Returns whether the proxy is hanging.
	 * @return whether nothing is forwarded
	 */
	public boolean isHung() {
		return this.hung;
	}

	/**
	 * Returns the connections accepted since start.
	 * @return the count
	 */
	public int connections() {
		return this.connections.get();
	}

	@Override
	public void close() throws IOException {
		this.closed = true;
		this.server.close();
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
		}
	}

	private void accept() {
		while (!this.closed) {
			Socket client;
			try {
				client = this.server.accept();
			}
			catch (IOException ex) {
				continue; // closed: the loop ends
			}
			this.connections.incrementAndGet();
			if (this.down) {
				closeQuietly(client);
				continue;
			}
			try {
				connect(client);
			}
			catch (IOException ex) {
				// The target refused: the client sees its connection end, as it would without the proxy.
				closeQuietly(client);
			}
		}
	}

	private void connect(Socket client) throws IOException {
		this.sockets.add(client);
		Socket target = new Socket(this.targetHost, this.targetPort);
		this.sockets.add(target);
		client.setTcpNoDelay(true);
		target.setTcpNoDelay(true);
		String name = "delaying-proxy-" + port() + "-" + this.connections.get();
		AtomicInteger ended = new AtomicInteger();
		forward(client, target, ended, name + "-up");
		forward(target, client, ended, name + "-down");
	}

	private void forward(Socket from, Socket to, AtomicInteger ended, String name) throws IOException {
		Direction direction = new Direction(to.getOutputStream(), () -> this.hung);
		start(name + "-read", () -> read(from, direction));
		start(name + "-write", () -> write(direction, from, to, ended));
	}

	private void read(Socket from, Direction direction) {
		long lastDue = System.nanoTime();
		try {
			// Not closed here: closing the stream closes the socket, and the other direction
			// may still have bytes to deliver through it.
			InputStream in = from.getInputStream();
			byte[] buffer = new byte[CHUNK_BYTES];
			int read;
			while ((read = in.read(buffer)) != -1) {
				lastDue = due(lastDue);
				direction.offer(buffer, read, lastDue);
			}
		}
		catch (IOException ex) {
			// Reset or closed: end the direction as an orderly end would.
		}
		// The end is delayed too, and comes after the last bytes; a read never yields an empty chunk.
		direction.queue.add(new Chunk(new byte[0], due(lastDue)));
		direction.pending.incrementAndGet();
	}

	/** A shorter delay set meanwhile must not let a chunk pass an earlier one. */
	private long due(long lastDue) {
		long due = System.nanoTime() + this.delayNanos;
		return (due - lastDue >= 0) ? due : lastDue;
	}

	private void write(Direction direction, Socket from, Socket to, AtomicInteger ended) {
		try {
			while (true) {
				Chunk chunk = direction.queue.take();
				awaitDue(chunk.due());
				awaitForwarding();
				if (chunk.bytes().length == 0) {
					to.shutdownOutput();
					break;
				}
				direction.write(chunk);
			}
		}
		catch (IOException ex) {
			// One side is gone: so is the connection.
			ended.set(1);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (ended.incrementAndGet() >= 2) {
			closeQuietly(from);
			closeQuietly(to);
		}
	}

	private static void awaitDue(long due) {
		long wait;
		while ((wait = due - System.nanoTime()) > 0) {
			LockSupport.parkNanos(wait);
		}
	}

	private void awaitForwarding() {
		while (this.hung && !this.closed) {
			LockSupport.parkNanos(1_000_000L);
		}
	}

	private void start(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
	}

	private void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Already gone.
		}
		this.sockets.remove(socket);
	}

	private record Chunk(byte[] bytes, long due) {
	}

	/**
	 * One direction of a connection: the chunks on their way and the socket they go to. A
	 * chunk due on arrival (no delay) with nothing ahead of it is written by the reader
	 * itself, sparing two thread hand-offs; the lock and the count of chunks not yet written
	 * keep it behind any earlier one.
	 */
	private static final class Direction {

		private final BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();

		private final AtomicInteger pending = new AtomicInteger();

		private final ReentrantLock lock = new ReentrantLock();

		private final OutputStream out;

		private final BooleanSupplier hung;

		Direction(OutputStream out, BooleanSupplier hung) {
			this.out = out;
			this.hung = hung;
		}

		void offer(byte[] buffer, int length, long due) throws IOException {
			this.lock.lock();
			try {
				if (this.pending.get() == 0 && due - System.nanoTime() <= 0 && !this.hung.getAsBoolean()) {
					this.out.write(buffer, 0, length);
					this.out.flush();
					return;
				}
				this.pending.incrementAndGet();
				this.queue.add(new Chunk(Arrays.copyOf(buffer, length), due));
			}
			finally {
				this.lock.unlock();
			}
		}

		void write(Chunk chunk) throws IOException {
			this.lock.lock();
			try {
				this.out.write(chunk.bytes());
				this.out.flush();
				this.pending.decrementAndGet();
			}
			finally {
				this.lock.unlock();
			}
		}

	}

}
