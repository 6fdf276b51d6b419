package io.ratelimit.client.fleet;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy that can stop forwarding, as a network partition does: connections stay open
 * and nothing comes back, so the client learns of it only through its own timeouts.
 */
final class StallingProxy implements AutoCloseable {

	private final String host;

	private final int port;

	private final ServerSocket server;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private volatile boolean stalled;

	/**
	 * Starts a proxy on a free loopback port.
	 * @param host the host to forward to
	 * @param port the port to forward to
	 * @throws IOException when no port is free
	 */
	StallingProxy(String host, int port) throws IOException {
		this.host = host;
		this.port = port;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		start(this::accept);
	}

	int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Drops everything sent either way from now on.
	 */
	void stall() {
		this.stalled = true;
	}

	private void accept() {
		try {
			while (true) {
				Socket client = this.server.accept();
				Socket upstream = new Socket(this.host, this.port);
				this.sockets.add(client);
				this.sockets.add(upstream);
				start(() -> forward(client, upstream));
				start(() -> forward(upstream, client));
			}
		}
		catch (IOException ex) {
			// Closed.
		}
	}

	private void forward(Socket from, Socket to) {
		byte[] buffer = new byte[8192];
		try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
			for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
				if (!this.stalled) {
					out.write(buffer, 0, read);
					out.flush();
				}
			}
		}
		catch (IOException ex) {
			// Closed.
		}
	}

	private static void start(Runnable task) {
		Thread thread = new Thread(task, "stalling-proxy");
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public void close() throws IOException {
		this.server.close();
		for (Socket socket : this.sockets) {
			socket.close();
		}
	}

}
