import rateLimit from '@fastify/rate-limit';
import { waitText } from '@meterway/service';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';

/** Per-route config for mutations: 60 a minute for each signed-in person (per instance). */
export const mutationRateLimit = { rateLimit: { max: 60, timeWindow: '1 minute' } };

/** Limits only the routes that ask for it (`config.rateLimit`), keyed by the viewer, else the address. */
export async function registerRateLimit(app: FastifyInstance) {
  await app.register(rateLimit, {
    global: false,
    keyGenerator: (request) => request.viewer?.personId ?? request.ip,
    errorResponseBuilder: (_request, context) =>
      new AppError('TooManyRequests', `Too many changes. Try again in ${waitText(context.ttl / 1000)}.`, { retryAfter: Math.ceil(context.ttl / 1000) }),
  });
}
