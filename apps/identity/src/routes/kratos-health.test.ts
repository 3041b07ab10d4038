import { describe, expect, it } from 'vitest';
import { setupIdentityServer } from '../testing/identity-server.js';

const t = setupIdentityServer();

describe("Kratos' health endpoints", () => {
  it('answers alive and ready while the database answers; once it stops, ready is 503 naming it and alive stays 200', async () => {
    const get = async (path: string) => {
      const response = await fetch(`${t.baseUrl}${path}`);
      return { status: response.status, body: await response.json() };
    };
    expect(await get('/health/alive')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await get('/health/ready')).toEqual({ status: 200, body: { status: 'ok' } });

    await t.testDb.handle.close();
    expect(await get('/health/ready')).toEqual({ status: 503, body: { errors: { database: 'The database does not answer.' } } });
    expect(await get('/health/alive')).toEqual({ status: 200, body: { status: 'ok' } });
  });
});
