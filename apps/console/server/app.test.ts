// @vitest-environment node
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sampleValue } from '@meterway/service/read-metrics';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeConfigElementId } from '../src/config/runtime-config';
import { createConsoleServer } from './app';
import { runtimeConfigFromEnv } from './env';
import { routeModules } from './page';

const indexHtml =
  '<!doctype html><html><head><script type="module" crossorigin src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';
const routeFile = (module: string) => `assets/${module.replace(/^.*\//, '').replace('.tsx', '')}-abc123.js`;
const screenModules = [...new Set(Object.values(routeModules).flat())].filter((module) => module.startsWith('src/'));
/**
 * Vite's manifest: every screen imports the shared form chunk, which imports the entry; app-layout
 * has CSS of its own, and Mantine's whole sheet is a file of its own.
 */
const manifest: Record<string, object> = {
  'index.html': { file: 'assets/index-abc123.js', isEntry: true },
  '_form-abc123.js': { file: 'assets/form-abc123.js', imports: ['index.html'] },
  '../../node_modules/@mantine/core/styles.layer.css': { file: 'assets/styles-abc123.css' },
  ...Object.fromEntries(
    screenModules.map((module) => [
      module,
      { file: routeFile(module), imports: ['_form-abc123.js'], ...(module.endsWith('app-layout.tsx') ? { css: ['assets/app-layout-abc123.css'] } : {}) },
    ]),
  ),
};
const script = `console.log(${JSON.stringify('x'.repeat(2000))});`;
const page = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** The JSON of the page's config element, as the SPA reads it. */
function configInPage(body: string): unknown {
  const opening = `<script type="application/json" id="${runtimeConfigElementId}">`;
  const start = body.indexOf(opening) + opening.length;
  expect(start).toBeGreaterThan(opening.length);
  return JSON.parse(body.slice(start, body.indexOf('</script>', start)));
}

/** The page's preload and stylesheet links beyond index.html's own, as `rel href`. */
const preloads = (body: string) =>
  [...body.matchAll(/<link rel="(modulepreload|stylesheet)" crossorigin href="([^"]+)">/g)].map((match) => `${match[1]} ${match[2]}`);

let publicDir: string;
let app: FastifyInstance;

/**
 * A GET with the path sent exactly as written: `inject` resolves '.', '..' and '%2e%2e' the way
 * a WHATWG URL does, so the paths the router and @fastify/static refuse never reach them.
 */
function overSocket(path: string, accept: string) {
  const { port } = app.server.address() as AddressInfo;
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, headers: { accept } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    }).on('error', reject);
  });
}

beforeAll(async () => {
  publicDir = await mkdtemp(join(tmpdir(), 'console-public-'));
  await mkdir(join(publicDir, 'assets'));
  await mkdir(join(publicDir, '.vite'));
  await writeFile(join(publicDir, 'index.html'), indexHtml);
  await writeFile(join(publicDir, '.vite/manifest.json'), JSON.stringify(manifest));
  await writeFile(join(publicDir, 'assets/index-abc123.js'), script);
  await writeFile(join(publicDir, 'assets/index-abc123.js.gz'), gzipSync(script));
  app = await createConsoleServer({ runtimeConfig: runtimeConfigFromEnv({ API_PORT: '8180' }), publicDir, logLevel: 'silent' });
  await app.listen({ host: '127.0.0.1', port: 0 });
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

  it.each(['/', '/login', '/dashboard', '/admin/users?page=2', '/nowhere'])('answers the page %s with index.html, revalidated every time', async (url) => {
    const response = await app.inject({ url, headers: page });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body).toContain('<div id="root"></div>');
    expect(response.body).toContain('<script type="module" crossorigin src="/assets/index-abc123.js"></script>');

    const again = await app.inject({ url, headers: { ...page, 'if-none-match': response.headers.etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('writes the runtime config into the page, so the SPA need not ask for /config.json', async () => {
    const response = await app.inject({ url: '/login', headers: page });
    expect(configInPage(response.body)).toEqual((await app.inject({ url: '/config.json' })).json());
  });

  it("lists the route's own chunks and styles in the page, and no other route's; /login goes without Mantine's whole sheet", async () => {
    const login = preloads((await app.inject({ url: '/login', headers: page })).body);
    expect(login).toEqual(['modulepreload /assets/public-layout-abc123.js', 'modulepreload /assets/form-abc123.js', 'modulepreload /assets/login-abc123.js']);

    const users = preloads((await app.inject({ url: '/admin/users/?page=2', headers: page })).body);
    expect(users).toEqual([
      'stylesheet /assets/styles-abc123.css',
      'stylesheet /assets/app-layout-abc123.css',
      'modulepreload /assets/app-layout-abc123.js',
      'modulepreload /assets/form-abc123.js',
      'modulepreload /assets/admin-users-abc123.js',
    ]);

    expect(preloads((await app.inject({ url: '/nowhere', headers: page })).body)).toEqual([]);
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

  it.each(['/%E0%A4%A', '/dashboard%', '/%C0%AE%C0%AE/', '/chat-completions/%zz?page=2'])(
    'answers the malformed path %s with the console page and 400, not the router JSON',
    async (url) => {
      const response = await overSocket(url, page.accept);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.headers['x-request-id']).toBeTruthy();
      expect(response.body).toContain('<div id="root"></div>');
      expect(configInPage(response.body)).toEqual((await app.inject({ url: '/config.json' })).json());
    },
  );

  it('answers a malformed path with problem+json when no page is asked for', async () => {
    for (const [url, accept] of [
      ['/dashboard%', 'application/json'],
      ['/assets/%', page.accept],
    ] as const) {
      const response = await overSocket(url, accept);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(response.body)).toMatchObject({ title: 'Bad Request', status: 400 });
    }
  });

  it.each(['/..%2f..%2fpackage.json', '/%2e%2e/%2e%2e/etc/passwd', '/a/./b', '/a//b', `/${'a'.repeat(300)}`, '/%00'])(
    'answers %s, a path no file can be at, like any unknown path',
    async (url) => {
      const response = await overSocket(url, page.accept);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.body).toContain('<div id="root"></div>');

      const api = await overSocket(url, 'application/json');
      expect(api.status).toBe(404);
      expect(api.headers['content-type']).toMatch(/^application\/problem\+json/);
    },
  );

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

  it('keeps a config value from ending the script element it is written into', async () => {
    const hostile = { ...runtimeConfigFromEnv({}), docsUrl: 'https://docs.example.com/?q=</script><script>alert(1)</script>&amp;' };
    const other = await createConsoleServer({ runtimeConfig: hostile, publicDir, logLevel: 'silent' });
    const { body } = await other.inject({ url: '/login', headers: page });
    await other.close();
    expect(body).not.toContain('<script>alert(1)');
    expect(configInPage(body)).toEqual(hostile);
  });

  it('exposes Prometheus metrics outside production without a token: request durations by route pattern', async () => {
    await app.inject({ url: '/config.json' });
    const response = await app.inject({ url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(
      sampleValue(response.body, 'meterway_console_http_request_duration_seconds_count', { route: '/config.json', status_code: '200' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('refuses to start without a build', async () => {
    await expect(createConsoleServer({ runtimeConfig: runtimeConfigFromEnv({}), publicDir: join(publicDir, 'nowhere'), logLevel: 'silent' })).rejects.toThrow(
      /index\.html is missing/,
    );
  });

  it('refuses to start when a route module is not in the build', async () => {
    const stale = await mkdtemp(join(tmpdir(), 'console-public-'));
    await mkdir(join(stale, '.vite'));
    await writeFile(join(stale, 'index.html'), indexHtml);
    const withoutLogin = Object.entries(manifest).filter(([key]) => key !== 'src/app/routes/login.tsx');
    await writeFile(join(stale, '.vite/manifest.json'), JSON.stringify(Object.fromEntries(withoutLogin)));
    await expect(createConsoleServer({ runtimeConfig: runtimeConfigFromEnv({}), publicDir: stale, logLevel: 'silent' })).rejects.toThrow(
      /src\/app\/routes\/login\.tsx is not in the build's manifest/,
    );
    await rm(stale, { recursive: true, force: true });
  });
});
