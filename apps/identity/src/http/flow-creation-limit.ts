import type { FastifyInstance } from 'fastify';
import type { IdentityContext } from '../context.js';
import { consumeRateLimit, rateRules } from '../domain/rate-limit.js';

/** The routes that start a flow (Kratos' `/self-service/<flow>/browser`); logout's makes no row. */
const createsFlow = /^\/self-service\/(login|registration|verification|recovery|settings)\/browser$/;

/** Counts each new flow against the client's address, so one address cannot fill the flows table. */
export function limitFlowCreation(app: FastifyInstance, ctx: IdentityContext): void {
  app.addHook('preHandler', async (request) => {
    if (request.method === 'GET' && createsFlow.test(request.routeOptions.url ?? '')) {
      await consumeRateLimit(ctx, [rateRules.flowCreationIp(request.ip)]);
    }
  });
}
