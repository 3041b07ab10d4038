import { describe, expect, it } from 'vitest';
import { loadIdentityConfig } from './env.js';
import { setupTestApp } from './testing/setup-test-app.js';

const t = setupTestApp();

describe('identity basics', () => {
  it('answers /healthz with {"status":"ok"} while the database answers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('answers an unknown route in the Kratos error envelope', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/nowhere' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 404, status: 'Not Found', message: 'The requested resource could not be found' } });
  });

  it('uses IDENTITY_DATABASE_URL over DATABASE_URL and sets Secure cookies on an https URL', () => {
    const config = loadIdentityConfig({
      DATABASE_URL: 'postgres://shared/db',
      IDENTITY_DATABASE_URL: 'postgres://own/db',
      IDENTITY_URL: 'https://id.example.com',
    });
    expect(config.databaseUrl).toBe('postgres://own/db');
    expect(config.cookie.secure).toBe(true);
    expect(loadIdentityConfig({}).cookie.secure).toBe(false);
  });

  it('answers /healthz with 503 once the database stops answering', async () => {
    await t.testDb.handle.close();
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(503);
  });

  it('keeps the dev outbox readable without SMTP', async () => {
    const outbox = await t.app.inject({ method: 'GET', url: '/dev/outbox' });
    expect(outbox.statusCode).toBe(200);
    expect(outbox.json()).toEqual({ messages: [] });
  });
});
