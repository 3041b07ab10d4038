import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostedUiRoutes } from './hosted-ui.js';

const consoleUrl = 'http://localhost:3000';
const html = '<!doctype html><html><head><script type="module" src="/ui/assets/index-Bx81kQ2a.js"></script></head><body><div id="root"></div></body></html>';
const script = 'console.log("hosted ui");';

let root: string;
const apps: FastifyInstance[] = [];

async function appWith(uiDir: string) {
  const app = Fastify();
  await app.register(hostedUiRoutes, { uiDir, consoleUrl });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hosted-ui-'));
  await mkdir(join(root, 'built', 'assets'), { recursive: true });
  await writeFile(join(root, 'built', 'index.html'), html);
  await writeFile(join(root, 'built', 'assets', 'index-Bx81kQ2a.js'), script);
  await mkdir(join(root, 'empty'));
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await rm(root, { recursive: true, force: true });
});

describe('hosted UI routes', () => {
  it('answers /ui/config.json with the console URL, never cached', async () => {
    const app = await appWith(join(root, 'built'));
    const response = await app.inject({ method: 'GET', url: '/ui/config.json' });

    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ consoleUrl });
  });

  it.each(['/ui/settings?flow=0b4e8f5a-7f1c-4c55-9a6e-2f4d5b8e3c21', '/ui/settings', '/ui/login?flow=3c9d2e1f', '/ui/recovery', '/ui/anything/else'])(
    'serves the page for %s with the security headers',
    async (url) => {
      const app = await appWith(join(root, 'built'));
      const response = await app.inject({ method: 'GET', url });

      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(html);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-security-policy']).toBe(
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
      );
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
    },
  );

  it('serves hashed assets with long immutable caching', async () => {
    const app = await appWith(join(root, 'built'));
    const response = await app.inject({ method: 'GET', url: '/ui/assets/index-Bx81kQ2a.js' });

    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(script);
    expect(response.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers 404, not the page, for a missing asset or file', async () => {
    const app = await appWith(join(root, 'built'));

    for (const url of ['/ui/assets/index-missing.js', '/ui/logo.png']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.body, url).not.toContain('<div id="root">');
    }
  });

  it('answers 503 while the pages are not built, and still serves the config', async () => {
    const app = await appWith(join(root, 'empty'));

    const page = await app.inject({ method: 'GET', url: '/ui/settings?flow=0b4e8f5a-7f1c-4c55-9a6e-2f4d5b8e3c21' });
    expect(page.statusCode).toBe(503);
    expect(page.headers['content-type']).toMatch(/^application\/json/);
    expect(page.json()).toEqual({
      error: { code: 503, status: 'Service Unavailable', message: 'The hosted pages are not built: run npm run build' },
    });

    const config = await app.inject({ method: 'GET', url: '/ui/config.json' });
    expect(config.statusCode).toBe(200);
  });
});
