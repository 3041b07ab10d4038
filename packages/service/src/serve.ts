import type { FastifyInstance } from 'fastify';
import { EnvError } from './env.js';

type ServeOptions = {
  /**
   * Builds the app: parses the environment, opens and migrates the database. `close` runs once the
   * app has closed (its onClose hooks run last-registered first, so a hook added here would run
   * before the app's own, which may still need the database).
   */
  build: () => Promise<{ app: FastifyInstance; host: string; port: number; close?: () => Promise<void> }>;
  shutdownTimeoutMs?: number;
};

/**
 * Runs a service until SIGTERM or SIGINT, then shuts down gracefully: stop accepting, let
 * in-flight requests finish (for half the timeout at most), run the onClose hooks, then `close`
 * (the database), exit 0. A second signal, or a shutdown slower than the timeout, exits at once with 1.
 */
export async function serve({ build, shutdownTimeoutMs = 10_000 }: ServeOptions): Promise<void> {
  let built: Awaited<ReturnType<ServeOptions['build']>>;
  try {
    built = await build();
  } catch (error) {
    if (error instanceof EnvError) console.error(error.message);
    else console.error(error);
    process.exit(1);
  }
  const { app, host, port, close } = built;

  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      app.log.error('shutdown timed out');
      process.exit(1);
    }, shutdownTimeoutMs);
    timer.unref();
    // The server closes once every connection has: one a client holds open mid-request (a body it
    // never finishes sends) would keep it, and the app's own shutdown, from ever running. Halfway
    // through the grace period the connections still open are cut, so the onClose hooks and
    // `close` still run.
    setTimeout(() => app.server.closeAllConnections(), shutdownTimeoutMs / 2).unref();
    app
      .close()
      .then(() => close?.())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);

  try {
    // The operator sees which runtime a service is on in its first line (Node 24 when started by npm).
    await app.listen({ host, port, listenTextResolver: (address) => `Server listening at ${address} on Node ${process.version}` });
  } catch (error) {
    app.log.fatal({ err: error }, 'could not listen');
    await app.close().catch(() => {});
    process.exit(1);
  }
}
