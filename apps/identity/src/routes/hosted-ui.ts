import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export type HostedUiOptions = {
  /** The Vite build of ui/: index.html and assets/. */
  uiDir: string;
  /** Where "Back to console" and the sign-in restarts point. */
  consoleUrl: string;
};

// Vite names everything under assets/ by content hash, so a file there never changes.
const immutable = 'public, max-age=31536000, immutable';

/**
 * The pages may only load their own bundle; Mantine writes its theme into <style> elements, hence
 * 'unsafe-inline' for styles only, and the TOTP QR code is a data: image. They are never framed.
 */
const pageHeaders = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

const notBuilt = {
  error: { code: 503, status: 'Service Unavailable', message: 'The hosted pages are not built: run npm run build' },
};

/** Identity's own pages (/ui/settings, /ui/login, …): the runtime config, the bundle and the page. */
export async function hostedUiRoutes(app: FastifyInstance, { uiDir, consoleUrl }: HostedUiOptions): Promise<void> {
  const config = JSON.stringify({ consoleUrl });
  app.get('/ui/config.json', async (_request, reply) => reply.header('cache-control', 'no-store').type('application/json').send(config));

  // Looked up per request (the default wildcard route) rather than listed at boot, so a rebuild
  // is served without a restart and a missing build at boot is not fatal.
  await app.register(fastifyStatic, {
    root: join(uiDir, 'assets'),
    prefix: '/ui/assets/',
    decorateReply: false,
    index: false,
    cacheControl: false,
    setHeaders: (reply) => reply.headers({ 'cache-control': immutable, 'x-content-type-options': 'nosniff' }),
  });

  // Read per request for the same reason; it is about a kilobyte.
  const sendPage = async (request: FastifyRequest, reply: FastifyReply) => {
    // A missing file (say /ui/logo.png) is a 404, never the page.
    if (/\.[a-z0-9]+$/i.test(request.url.split('?')[0] ?? '')) return reply.callNotFound();
    let html: string;
    try {
      html = await readFile(join(uiDir, 'index.html'), 'utf8');
    } catch {
      return reply.code(503).header('cache-control', 'no-store').send(notBuilt);
    }
    return reply.headers(pageHeaders).type('text/html; charset=utf-8').send(html);
  };
  app.get('/ui', sendPage);
  app.get('/ui/*', sendPage);
}
