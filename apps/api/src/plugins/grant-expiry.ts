import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import { expireGrants } from '../domain/credit/expire-grants.js';

/**
 * The promotional grant expiry sweep: every instance, every GRANT_EXPIRY_INTERVAL_MS, takes what
 * is left of the grants whose expiry has come out of the balances (each remainder leaves once,
 * whichever instance takes it).
 */
export function registerGrantExpiry(fastify: FastifyInstance, deps: AppDeps) {
  const { config, db } = deps;
  let round: Promise<void> | undefined;
  const run = async () => {
    const { expired } = await expireGrants(db.db, new Date());
    if (expired > 0) fastify.log.info({ expired }, 'promotional grants expired');
  };
  const timer = setInterval(() => {
    round ??= run()
      .catch((error: unknown) => fastify.log.error({ err: error }, 'expiring promotional grants failed; tried again at the next round'))
      .finally(() => {
        round = undefined;
      });
  }, config.grants.expiryIntervalMs);
  fastify.addHook('onClose', async () => {
    clearInterval(timer);
    await round;
  });
}
