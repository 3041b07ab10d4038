import { chatCompletionQuerySchema, creditHistoryQuerySchema, usageDailyQuerySchema } from '@meterway/contracts';
import { Validator } from '@seriousme/openapi-schema-validator';
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
      'responseCacheSeconds',
      'responseCacheShared',
    ]);
  });

  it('publishes a document that validates against the OpenAPI schema of its version', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('documents every developer-API route with its request and response schemas, a summary, a description and the admin key as a bearer token', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.components.securitySchemes.adminSecretKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const queryOf = (schema: { shape: object }) => Object.keys(schema.shape).sort();
    const keyId = { path: ['publishableKeyId'] };
    // What each route takes; a new route under /v1/organization without an entry here fails below.
    const requests: Record<string, { query?: string[]; path?: string[]; body?: string[] }> = {
      'GET /v1/organization/balance': {},
      'GET /v1/organization/credit-history': { query: queryOf(creditHistoryQuerySchema) },
      'GET /v1/organization/usage': { query: queryOf(chatCompletionQuerySchema) },
      'GET /v1/organization/usage/daily': { query: queryOf(usageDailyQuerySchema) },
      'GET /v1/organization/publishable-keys': {},
      'POST /v1/organization/publishable-keys': { body: ['name', 'budget', 'allowedOrigins'] },
      'PUT /v1/organization/publishable-keys/:publishableKeyId': { ...keyId, body: ['name', 'budget', 'allowedOrigins'] },
      'DELETE /v1/organization/publishable-keys/:publishableKeyId': { ...keyId, body: ['reason'] },
    };
    const registered = t.app.routeTable.filter((route) => route.url.startsWith('/v1/organization')).map((route) => `${route.method} ${route.url}`);
    expect([...new Set(registered)].sort()).toEqual(Object.keys(requests).sort());

    for (const [route, expected] of Object.entries(requests)) {
      const [method = '', url = ''] = route.split(' ');
      const operation = document.paths[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
      expect(operation, route).toBeDefined();
      expect(operation.summary, route).toMatch(/\S/);
      expect(operation.description, route).toMatch(/\S/);
      expect(operation.security, route).toEqual([{ adminSecretKey: [] }]);
      const parameters = (where: string) =>
        (operation.parameters ?? [])
          .filter((parameter: { in: string }) => parameter.in === where)
          .map((parameter: { name: string; schema: object }) => (parameter.schema ? parameter.name : `${parameter.name} without a schema`))
          .sort();
      expect(parameters('query'), route).toEqual(expected.query ?? []);
      expect(parameters('path'), route).toEqual(expected.path ?? []);
      const body = operation.requestBody?.content?.['application/json']?.schema;
      if (expected.body) expect(Object.keys(body?.properties ?? {}), route).toEqual(expect.arrayContaining(expected.body));
      else expect(body, route).toBeUndefined();
      const success = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
      expect(success, route).toHaveLength(1);
      expect(operation.responses[success[0]!].content['application/json'].schema, route).toBeDefined();
      for (const status of ['400', '401', '403', '429']) {
        expect(Object.keys(operation.responses[status].content['application/json'].schema.properties.error.properties), `${route} ${status}`).toEqual([
          'message',
          'type',
          'code',
          'param',
        ]);
      }
    }
    expect(document.paths['/v1/organization/balance'].get.responses['200'].content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['remainingSpendAmount', 'promotionalCreditAmount', 'nextCreditExpiry']),
    );
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
    // The gateway's JSON answers carry no page headers (helmet's), only nosniff.
    const gateway = await t.app.inject({ method: 'GET', url: '/v1/models' });
    expect(gateway.headers['x-content-type-options']).toBe('nosniff');
    expect(gateway.headers['x-frame-options']).toBeUndefined();
    for (const url of ['/healthz', '/bff/config', '/v1/models']) {
      const overHttps = await https.app.inject({ method: 'GET', url });
      expect(overHttps.headers['strict-transport-security'], url).toBe('max-age=31536000; includeSubDomains');
      expect(overHttps.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });
});
