import { createDb } from '@meterway/db';
import { freePort, isDatabaseUnavailable } from '@meterway/service';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.js';
import { type ApiDb, schema } from '../db/index.js';
import { loadApiConfig } from '../env.js';
import type { IdentitySessions } from '../plugins/identity-sessions.js';

// The api pointed at a Postgres address where nothing listens: every request that needs the
// database meets a refused connection, as during a restart. Runs everywhere (no server needed).
let app: FastifyInstance;
let db: ApiDb;
beforeAll(async () => {
  db = await createDb({ schema, service: 'api', dataDir: '', databaseUrl: `postgres://postgres@127.0.0.1:${await freePort()}/meterway` });
  const signedIn: IdentitySessions = {
    whoami: async () => ({ outcome: 'session', session: { identityId: 'a0f3c1de-35a4-4f5b-9a57-5d1c3b1e2f00', email: 'someone@example.com', verified: true } }),
    cacheSize: () => 0,
  };
  app = await createApp({
    config: loadApiConfig({
      LOG_LEVEL: 'silent',
      API_SECRET: 'a-secret-long-enough-for-the-api-config',
      KEY_HASH_SECRET: 'a-key-hash-secret-long-enough-for-the-config',
    }),
    db,
    sessions: signedIn,
  });
});
afterAll(async () => {
  await app?.close();
  await db?.close();
});

describe('the database cannot be reached', () => {
  it('answers the gateway with 503, Retry-After and OpenAI’s error shape', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer pk_live_${'a'.repeat(32)}`, origin: 'https://app.example.com' },
      payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] },
    });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.json()).toEqual({
      error: {
        type: 'api_error',
        code: 'service_unavailable',
        param: null,
        message: 'The gateway cannot reach its database. Nothing was charged. Retry in 5 seconds.',
      },
    });
  });

  it('answers the console with 503, Retry-After and problem+json', async () => {
    const response = await app.inject({ method: 'GET', url: '/bff/me', headers: { cookie: 'ory_kratos_session=x' } });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toEqual({
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      code: 'ServiceUnavailable',
      detail: 'The service cannot reach its database. Try again in a moment.',
    });
  });

  it('tells a lost connection from a query that failed', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(isDatabaseUnavailable(new Error('Failed query: select 1', { cause: new AggregateError([refused], '') }))).toBe(true);
    expect(
      isDatabaseUnavailable(
        new Error('Failed query', { cause: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }) }),
      ),
    ).toBe(true);
    expect(isDatabaseUnavailable(new Error('Failed query', { cause: new Error('Connection terminated unexpectedly') }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Failed query', { cause: Object.assign(new Error('duplicate key value'), { code: '23505' }) }))).toBe(false);
    expect(
      isDatabaseUnavailable(new Error('Failed query', { cause: Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }) })),
    ).toBe(false);
  });
});
