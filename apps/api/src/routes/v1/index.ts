import type { FastifyInstance } from 'fastify';
import type { ApiConfig } from '../../env.js';
import type { Gateway } from '../../gateway/gateway.js';
import { chatCompletionRoutes } from './chat-completions.js';
import { gatewayScope } from './gateway-scope.js';

/** The metering gateway under /v1: OpenAI-compatible, publishable keys, its own CORS and error shape. */
export async function registerGateway(fastify: FastifyInstance, gateway: Gateway, config: ApiConfig): Promise<void> {
  await fastify.register(
    async (scope) => {
      gatewayScope(scope);
      chatCompletionRoutes(scope, gateway, { idleTimeoutMs: config.gateway.idleTimeoutMs });
    },
    { prefix: '/v1' },
  );
}
