import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import { expireGrants } from '../domain/credit/expire-grants.js';
import { repeatRounds } from './rounds.js';

/**
 * The promotional grant expiry sweep: every instance, every GRANT_EXPIRY_INTERVAL_MS, takes what
 * is left of the grants whose expiry has come out of the balances (each remainder leaves once,
 * whichever instance takes it).
 */
export function registerGrantExpiry(fastify: FastifyInstance, deps: AppDeps) {
  repeatRounds(fastify, {
    everyMs: deps.config.grants.expiryIntervalMs,
    failure: 'expiring promotional grants failed; tried again at the next round',
    round: async () => {
      const { expired } = await expireGrants(deps.db.db, new Date());
      if (expired > 0) fastify.log.info({ expired }, 'promotional grants expired');
    },
  });
}
