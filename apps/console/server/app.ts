import { join, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import { echoRequestId, fastifyOptions } from '@meterway/service';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { RuntimeConfig } from '../src/config/runtime-config';
import { loadPages } from './page';
import { registerSecurityHeaders } from './security-headers';

export type ConsoleServerDeps = {
  runtimeConfig: RuntimeConfig;
  /** The Vite build: index.html, .vite/manifest.json and assets/. */
  publicDir: string;
};

// Vite names everything under assets/ by content hash, so a file there never changes.
const immutable = 'public, max-age=31536000, immutable';

/** The console's server as a Fastify plugin: config, health, the built SPA and its fallback. */
export async function consoleServer(app: FastifyInstance, { runtimeConfig, publicDir }: ConsoleServerDeps): Promise<void> {
  const { pageFor } = loadPages(publicDir, runtimeConfig);
  echoRequestId(app);
  registerSecurityHeaders(app, runtimeConfig);

  app.get('/healthz', async () => ({ status: 'ok' }));

  const body = JSON.stringify(runtimeConfig);
  app.get('/config.json', async (request, reply) => reply.header('cache-control', 'no-store').type('application/json').send(body));

  await app.register(fastifyStatic, {
    root: publicDir,
    index: false,
    cacheControl: false,
    preCompressed: true,
    setHeaders: (reply, path) => {
      reply.header('cache-control', path.startsWith(join(publicDir, 'assets') + sep) ? immutable : 'no-cache');
    },
  });

  const sendIndex = (request: FastifyRequest, reply: FastifyReply) => {
    const page = pageFor(new URL(request.url, 'http://console').pathname);
    reply.header('cache-control', 'no-cache').header('etag', page.etag);
    if (request.headers['if-none-match'] === page.etag) return reply.code(304).send();
    return reply.type('text/html; charset=utf-8').send(page.body);
  };
  app.get('/', sendIndex);
  app.setNotFoundHandler((request, reply) => {
    if (wantsPage(request)) return sendIndex(request, reply);
    return reply
      .code(404)
      .type('application/problem+json')
      .send({ type: 'about:blank', title: 'Not Found', status: 404, detail: `${request.method} ${request.url} not found` });
  });
}

/** A browser navigating to a client-side route; a missing asset stays a 404, never HTML. */
function wantsPage(request: FastifyRequest): boolean {
  return (
    (request.method === 'GET' || request.method === 'HEAD') &&
    !request.url.startsWith('/assets/') &&
    (request.headers.accept ?? '').includes('text/html')
  );
}

export async function createConsoleServer({ logLevel, ...deps }: ConsoleServerDeps & { logLevel: string }): Promise<FastifyInstance> {
  const app = Fastify(fastifyOptions(logLevel));
  await app.register(consoleServer, deps);
  return app;
}
