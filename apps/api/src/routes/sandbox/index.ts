import type { RouteDeps } from '../../deps.js';
import { registerRateLimit } from '../../plugins/rate-limit.js';
import { refuseUnstorableText } from '@meterway/service';
import { unstorableText } from '../../errors/app-error.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';
import { sandboxCheckoutRoutes, sandboxSettler } from './checkout.js';
import { sandboxPortalRoutes } from './portal.js';

/** The sandbox payment provider's own pages and API, with the settler that plays its webhooks. */
export async function registerSandbox(app: FastifyZodInstance, deps: RouteDeps) {
  const settler = sandboxSettler(deps.db, app.log);
  app.addHook('onClose', async () => settler.stop());
  await app.register(async (sandbox: FastifyZodInstance) => {
    await registerRateLimit(sandbox);
    refuseUnstorableText(sandbox, unstorableText);
    sandboxCheckoutRoutes(sandbox, deps, settler.settleSoon);
    sandboxPortalRoutes(sandbox, deps);
  });
}
