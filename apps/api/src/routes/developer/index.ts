import { refuseUnstorableText } from '@meterway/service';
import type { RouteDeps } from '../../deps.js';
import { unstorableText } from '../../errors/app-error.js';
import { requireAdminKey } from '../../plugins/admin-key-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';
import { balanceRoutes } from './balance.js';
import { developerScope } from './developer-scope.js';
import { publishableKeyRoutes } from './publishable-keys.js';
import { usageRoutes } from './usage.js';

/**
 * The developer API under /v1/organization (issue #23): the organisation's balance, credit history,
 * usage and publishable keys for its servers, with a secret key of the admin scope. Its own scope:
 * key authentication instead of the console's session, no CORS, OpenAI's error shape.
 */
export async function registerDeveloperApi(app: FastifyZodInstance, deps: RouteDeps): Promise<void> {
  await app.register(
    async (developer: FastifyZodInstance) => {
      developerScope(developer);
      requireAdminKey(developer, { db: deps.db.db, hashSecretKey: deps.hashSecretKey, rate: deps.meter.rate });
      refuseUnstorableText(developer, unstorableText);
      balanceRoutes(developer, deps);
      usageRoutes(developer, deps);
      publishableKeyRoutes(developer, deps);
    },
    { prefix: '/v1/organization' },
  );
}
