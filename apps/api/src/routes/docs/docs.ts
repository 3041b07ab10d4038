import type { FastifyInstance } from 'fastify';
import { docsContentSecurityPolicy } from './docs-assets.js';
import { type DocsModel, renderDocsPage } from './docs-page.js';

export type DocsRoutesOptions = { apiUrl: string; consoleUrl: string; models: () => DocsModel[]; priceListVersion?: string };

/** GET /docs: the public developer quickstart. Models are read per request so a pricing reload shows up. */
export function docsRoutes(app: FastifyInstance, options: DocsRoutesOptions): void {
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'public, max-age=300',
    'content-security-policy': docsContentSecurityPolicy,
  };
  app.get('/docs', { schema: { hide: true } }, async (_request, reply) =>
    reply.headers(headers).send(
      renderDocsPage({
        apiUrl: options.apiUrl,
        consoleUrl: options.consoleUrl,
        models: options.models(),
        priceListVersion: options.priceListVersion,
      }),
    ),
  );
}
