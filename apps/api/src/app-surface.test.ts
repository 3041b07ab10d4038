import { describe, expect, it } from 'vitest';
import { setupTestApp } from './testing/setup-test-app.js';

const t = setupTestApp({ CONSOLE_URL: 'https://console.example.com' });
const https = setupTestApp({ CONSOLE_URL: 'https://console.example.com', API_URL: 'https://api.example.com' });

describe('api surface', () => {
  it('publishes an OpenAPI document generated from the contracts', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/bff/me', '/bff/publishable-keys', '/bff/publishable-keys/{publishableKeyId}']));
    const createKey = document.paths['/bff/publishable-keys'].post;
    expect(Object.keys(createKey.requestBody.content['application/json'].schema.properties)).toEqual([
      'name',
      'budget',
      'budgetType',
      'allowedOrigins',
      'allowedModels',
      'maxOutputTokensPerCall',
      'perClientLimits',
      'perEndUserLimits',
      'endUserTokens',
    ]);
  });

  it('answers console preflights with credentials, for the console origin only', async () => {
    const preflight = (origin: string) => t.app.inject({ method: 'OPTIONS', url: '/bff/me', headers: { origin, 'access-control-request-method': 'GET' } });
    const allowed = await preflight('https://console.example.com');
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://console.example.com');
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    expect((await preflight('https://evil.example.net')).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets the console read the payment config and drive the sandbox checkout from its origin', async () => {
    const config = await t.app.inject({ method: 'GET', url: '/bff/config', headers: { origin: 'https://console.example.com' } });
    expect(config.headers['access-control-allow-origin']).toBe('https://console.example.com');
    expect(config.headers['access-control-allow-credentials']).toBe('true');
    const confirm = await t.app.inject({
      method: 'OPTIONS',
      url: '/sandbox/checkout-sessions/cs_sandbox_x/confirm',
      headers: { origin: 'https://console.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(confirm.statusCode).toBe(204);
    expect(confirm.headers['access-control-allow-origin']).toBe('https://console.example.com');
    const foreign = await t.app.inject({ method: 'GET', url: '/bff/config', headers: { origin: 'https://evil.example.net' } });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends security headers; HSTS only when served over https, on the gateway too', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(response.headers['strict-transport-security']).toBeUndefined();
    for (const url of ['/healthz', '/bff/config', '/v1/models']) {
      const overHttps = await https.app.inject({ method: 'GET', url });
      expect(overHttps.headers['strict-transport-security'], url).toBe('max-age=31536000; includeSubDomains');
      expect(overHttps.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });
});
