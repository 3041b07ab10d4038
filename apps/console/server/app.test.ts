// @vitest-environment node
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleServer } from './app';
import { runtimeConfigFromEnv } from './env';

const indexHtml = '<!doctype html><html><body><div id="root"></div><script type="module" src="/assets/index-abc123.js"></script></body></html>';
const script = `console.log(${JSON.stringify('x'.repeat(2000))});`;
const page = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

let publicDir: string;
let app: FastifyInstance;

beforeAll(async () => {
  publicDir = await mkdtemp(join(tmpdir(), 'console-public-'));
  await mkdir(join(publicDir, 'assets'));
  await writeFile(join(publicDir, 'index.html'), indexHtml);
  await writeFile(join(publicDir, 'assets/index-abc123.js'), script);
  await writeFile(join(publicDir, 'assets/index-abc123.js.gz'), gzipSync(script));
  app = await createConsoleServer({ runtimeConfig: runtimeConfigFromEnv({ API_PORT: '8180' }), publicDir, logLevel: 'silent' });
});

afterAll(async () => {
  await app.close();
  await rm(publicDir, { recursive: true, force: true });
});

describe('the console server', () => {
  it('serves /config.json from the environment, never cached', async () => {
    const response = await app.inject({ url: '/config.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({
      apiUrls: { 'http://localhost:3000': 'http://localhost:8180' },
      identityUrl: 'http://localhost:4000',
      docsUrl: 'http://localhost:8180/docs',
    });
  });

  it('answers /healthz', async () => {
    const response = await app.inject({ url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it.each(['/', '/login', '/dashboard', '/admin/users?page=2'])('answers the page %s with index.html, revalidated every time', async (url) => {
    const response = await app.inject({ url, headers: page });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body).toBe(indexHtml);
  });

  it('caches hashed assets for a year and sends them compressed when accepted', async () => {
    const plain = await app.inject({ url: '/assets/index-abc123.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-type']).toMatch(/javascript/);
    expect(plain.body).toBe(script);

    const compressed = await app.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(compressed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(compressed.headers.vary).toMatch(/accept-encoding/i);
  });

  it('answers 404, not the page, for a missing asset or a non-HTML request', async () => {
    const asset = await app.inject({ url: '/assets/index-gone.js', headers: page });
    expect(asset.statusCode).toBe(404);
    expect(asset.headers['content-type']).toMatch(/^application\/problem\+json/);

    const api = await app.inject({ url: '/bff/me', headers: { accept: 'application/json' } });
    expect(api.statusCode).toBe(404);

    const post = await app.inject({ method: 'POST', url: '/login', headers: page });
    expect(post.statusCode).toBe(404);
  });

  it('sends the security headers on every response', async () => {
    for (const url of ['/login', '/config.json', '/assets/index-abc123.js', '/missing']) {
      const response = await app.inject({ url, headers: page });
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.headers['x-request-id']).toBeTruthy();
    }
  });

  it('lets the page reach only itself, the API, identity and Stripe', async () => {
    const response = await app.inject({ url: '/login', headers: page });
    const policy = response.headers['content-security-policy'];
    expect(policy).toContain("connect-src 'self' http://localhost:8180 http://localhost:4000 https://api.stripe.com;");
    expect(policy).toContain("script-src 'self' https://js.stripe.com;");
    expect(policy).toContain('frame-src https://js.stripe.com https://hooks.stripe.com;');
  });

  it('refuses to start without a build', async () => {
    await expect(
      createConsoleServer({ runtimeConfig: runtimeConfigFromEnv({}), publicDir: join(publicDir, 'nowhere'), logLevel: 'silent' }),
    ).rejects.toThrow(/index\.html is missing/);
  });
});
