package io.ratelimit.client.jdk;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.http.HttpClient;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The lifecycle methods {@link HttpClient} gained in Java 21, called on a client when the
 * runtime has them. The module is built for Java 17, which has none, yet a decorator running
 * on Java 21 must forward them: otherwise closing it would leave its delegate's threads and
 * connections open. On Java 17 each does what the Java 21 defaults do: nothing.
 */
final class ClientLifecycle {

	private static final @Nullable MethodHandle SHUTDOWN = find("shutdown", MethodType.methodType(void.class));

	private static final @Nullable MethodHandle SHUTDOWN_NOW = find("shutdownNow", MethodType.methodType(void.class));

	private static final @Nullable MethodHandle AWAIT_TERMINATION = find("awaitTermination",
			MethodType.methodType(boolean.class, Duration.class));

	private static final @Nullable MethodHandle IS_TERMINATED = find("isTerminated",
			MethodType.methodType(boolean.class));

	private static final @Nullable MethodHandle CLOSE = find("close", MethodType.methodType(void.class));

	private ClientLifecycle() {
	}

	static void shutdown(HttpClient client) {
		run(SHUTDOWN, client);
	}

	static void shutdownNow(HttpClient client) {
		run(SHUTDOWN_NOW, client);
	}

	static void close(HttpClient client) {
		run(CLOSE, client);
	}

	static boolean isTerminated(HttpClient client) {
		if (IS_TERMINATED == null) {
			return false;
		}
		try {
			return (boolean) IS_TERMINATED.invokeExact(client);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	static boolean awaitTermination(HttpClient client, Duration duration) throws InterruptedException {
		if (AWAIT_TERMINATION == null) {
			return true;
		}
		try {
			return (boolean) AWAIT_TERMINATION.invokeExact(client, duration);
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void run(@Nullable MethodHandle method, HttpClient client) {
		if (method == null) {
			return;
		}
		try {
			method.invokeExact(client);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static @Nullable MethodHandle find(String name, MethodType type) {
		try {
			return MethodHandles.publicLookup().findVirtual(HttpClient.class, name, type);
		}
		catch (NoSuchMethodException | IllegalAccessException ex) {
			return null;
		}
	}

}
