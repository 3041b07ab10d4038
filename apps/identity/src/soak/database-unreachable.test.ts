import { createDb } from '@meterway/db';
import { freePort } from '@meterway/service';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.js';
import { type IdentityDb, schema } from '../db/index.js';
import { loadIdentityConfig } from '../env.js';

// Identity pointed at a Postgres address where nothing listens: every request that needs the
// database meets a refused connection, as during a restart. Runs everywhere (no server needed).
let app: FastifyInstance;
let db: IdentityDb;
beforeAll(async () => {
  db = await createDb({ schema, service: 'identity', dataDir: '', databaseUrl: `postgres://postgres@127.0.0.1:${await freePort()}/meterway` });
  // With the secret configured, booting needs no database.
  const config = loadIdentityConfig({ LOG_LEVEL: 'silent', IDENTITY_SECRET: 'a-secret-long-enough-for-the-identity-config' });
  app = await createApp({ config, db });
});
afterAll(async () => {
  await app?.close();
  await db?.close();
});

const unavailable = {
  error: {
    code: 503,
    status: 'Service Unavailable',
    reason: 'The identity service cannot reach its database. Nothing was changed. Please wait 5 seconds and try again.',
    message: 'The service is temporarily unavailable',
    details: { retry_after: 5 },
    request: expect.any(String),
  },
};

describe('the database cannot be reached', () => {
  it.each([
    ['GET', '/self-service/registration/browser'],
    ['GET', '/self-service/login/browser'],
    ['GET', '/sessions/whoami'],
    ['POST', '/self-service/login?flow=5f0c3a52-8a1e-4d8f-9d55-2a7f7e0f9b11'],
  ] as const)('%s %s answers 503 with Retry-After in Kratos’ envelope, never a 500', async (method, url) => {
    const response = await app.inject({
      method,
      url,
      headers: { accept: 'application/json', cookie: 'ory_kratos_session=ory_st_abcdefghijklmnopqrstuvwxyz123456' },
      ...(method === 'POST' ? { payload: { method: 'password', identifier: 'someone@example.com', password: 'x', csrf_token: 'x' } } : {}),
    });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual(unavailable);
  });

  it('says so on /healthz, so a load balancer sends people elsewhere', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(503);
  });
});
