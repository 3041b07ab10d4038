import { STATUS_CODES } from 'node:http';
import { join, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import { echoRequestId, fastifyOptions, registerMetrics } from '@meterway/service';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { RuntimeConfig } from '../src/config/runtime-config';
import { loadPages, type Pages } from './page';
import { registerSecurityHeaders, securityHeaders } from './security-headers';

export type ConsoleServerDeps = {
  runtimeConfig: RuntimeConfig;
  /** The Vite build: index.html, .vite/manifest.json and assets/. */
  publicDir: string;
  /** `/metrics`: METRICS_TOKEN, and whether it is production (no token there: no `/metrics`). */
  metrics?: { token: string | undefined; production: boolean };
};

// Vite names everything under assets/ by content hash, so a file there never changes.
const immutable = 'public, max-age=31536000, immutable';

/** The console's server as a Fastify plugin: config, health, the built SPA and its fallback. */
export async function consoleServer(app: FastifyInstance, { runtimeConfig, publicDir, pages, metrics }: ConsoleServerDeps & { pages: Pages }): Promise<void> {
  echoRequestId(app);
  registerSecurityHeaders(app, runtimeConfig);
  registerMetrics(app, { prefix: 'meterway_console_', token: metrics?.token, production: metrics?.production ?? false });

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
    const page = pages.pageFor(new URL(request.url, 'http://console').pathname);
    reply.header('cache-control', 'no-cache').header('etag', page.etag);
    if (request.headers['if-none-match'] === page.etag) return reply.code(304).send();
    return reply.type('text/html; charset=utf-8').send(page.body);
  };
  app.get('/', sendIndex);
  app.setNotFoundHandler((request, reply) => {
    if (wantsPage(request)) return sendIndex(request, reply);
    return sendProblem(reply, 404, `${request.method} ${request.url} not found`);
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // @fastify/static will not look a path up ('..' or '.' segments, a name too long for the disk):
    // no file is there, so it is answered like any other path without one.
    if (error.code === 'FST_STATIC_FORBIDDEN_PATH') return reply.callNotFound();
    const status = error.statusCode ?? 500;
    if (status < 500) return sendProblem(reply, status, error.message);
    request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, status, 'Something went wrong on our side. Try again later.');
  });
}

/** A browser navigating to a client-side route; a missing asset stays a 404, never HTML. */
function wantsPage(request: FastifyRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && !request.url.startsWith('/assets/') && (request.headers.accept ?? '').includes('text/html');
}

function sendProblem(reply: FastifyReply, status: number, detail: string) {
  return reply
    .code(status)
    .type('application/problem+json')
    .send({ type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail });
}

/**
 * The router refuses a path it cannot decode ('/dashboard%') before any hook or route runs, so
 * this answer sets the headers the hooks would have. A browser gets the console, which sends an
 * unknown path on to the dashboard, rather than Fastify's JSON.
 */
function badUrlAnswer(pages: Pages, headers: Record<string, string>) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.headers(headers).header('x-request-id', request.id);
    const status = error.statusCode ?? 400;
    if (!wantsPage(request)) return sendProblem(reply, status, error.message);
    return reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(pages.fallback.body);
  };
}

export async function createConsoleServer({ logLevel, ...deps }: ConsoleServerDeps & { logLevel: string }): Promise<FastifyInstance> {
  const pages = loadPages(deps.publicDir, deps.runtimeConfig);
  const app = Fastify({ ...fastifyOptions(logLevel), frameworkErrors: badUrlAnswer(pages, securityHeaders(deps.runtimeConfig)) });
  await app.register(consoleServer, { ...deps, pages });
  return app;
}
