import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { publishableKeys } from '../../db/schema/index.js';
import { setupTestApp } from '../../testing/setup-test-app.js';

const t = setupTestApp({}, { identity: true });

type Json = Record<string, any>;
const call = (cookie: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Json) =>
  t.app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });

const valid = { name: 'Storefront', budget: 10, budgetType: 'monthly', allowedOrigins: ['https://shop.example.com'] };
const rolledAt = new Date('2031-03-10T09:15:00.000Z');

// Only Date is faked: the api's clock, while timers and the identity service run for real.
afterEach(() => {
  vi.useRealTimers();
});

async function keyOf(cookie: string) {
  return (await call(cookie, 'POST', '/bff/publishable-keys', valid)).json();
}

describe('POST /bff/publishable-keys/:id/roll', () => {
  it('issues a new value for the same key and says until when the old one works, never what it was', async () => {
    const { cookie } = await t.users.signUp();
    const key = await keyOf(cookie);
    vi.useFakeTimers({ toFake: ['Date'], now: rolledAt });

    const rolled = await call(cookie, 'POST', `/bff/publishable-keys/${key.id}/roll`, { overlapHours: 6 });

    expect(rolled.statusCode).toBe(200);
    expect(rolled.json()).toEqual({ ...key, value: expect.stringMatching(/^pk_live_[0-9A-Za-z]{32}$/), previousValueExpiresAt: '2031-03-10T15:15:00.000Z' });
    expect(rolled.json().value).not.toBe(key.value);
    expect(rolled.body).not.toContain(key.value);
    const list = await call(cookie, 'GET', '/bff/publishable-keys');
    expect(list.json()).toEqual({ publishableKeys: [rolled.json()] });
    expect(list.body).not.toContain(key.value);
  });

  it('drops previousValueExpiresAt from the list once the overlap is over', async () => {
    const { cookie } = await t.users.signUp();
    const key = await keyOf(cookie);
    vi.useFakeTimers({ toFake: ['Date'], now: rolledAt });
    await call(cookie, 'POST', `/bff/publishable-keys/${key.id}/roll`, { overlapHours: 1 });

    vi.setSystemTime(rolledAt.getTime() + 3_600_000 - 1000);
    expect((await call(cookie, 'GET', '/bff/publishable-keys')).json().publishableKeys[0].previousValueExpiresAt).toBe('2031-03-10T10:15:00.000Z');
    vi.setSystemTime(rolledAt.getTime() + 3_600_000);
    expect((await call(cookie, 'GET', '/bff/publishable-keys')).json().publishableKeys[0]).not.toHaveProperty('previousValueExpiresAt');
  });

  it('with overlap 0 keeps no previous value', async () => {
    const { cookie } = await t.users.signUp();
    const key = await keyOf(cookie);

    const rolled = await call(cookie, 'POST', `/bff/publishable-keys/${key.id}/roll`, { overlapHours: 0 });

    expect(rolled.statusCode).toBe(200);
    expect(rolled.json()).not.toHaveProperty('previousValueExpiresAt');
    const [row] = await t.testDb.db.select().from(publishableKeys).where(eq(publishableKeys.id, key.id));
    expect(row).toMatchObject({ value: rolled.json().value, previousValue: null, previousValueExpiresAt: null });
  });

  it('rolled again during an overlap: the value just replaced becomes the previous one, with the new overlap', async () => {
    const { cookie } = await t.users.signUp();
    const key = await keyOf(cookie);
    vi.useFakeTimers({ toFake: ['Date'], now: rolledAt });
    const first = (await call(cookie, 'POST', `/bff/publishable-keys/${key.id}/roll`, { overlapHours: 24 })).json();
    vi.setSystemTime(rolledAt.getTime() + 60_000);

    const second = (await call(cookie, 'POST', `/bff/publishable-keys/${key.id}/roll`, { overlapHours: 12 })).json();

    expect(second.previousValueExpiresAt).toBe('2031-03-10T21:16:00.000Z');
    const [row] = await t.testDb.db.select().from(publishableKeys).where(eq(publishableKeys.id, key.id));
    expect(row).toMatchObject({ value: second.value, previousValue: first.value });
  });

  it('refuses a deleted key with 404', async () => {
    const { cookie } = await t.users.signUp();
    const key = await keyOf(cookie);
    await call(cookie, 'DELETE', `/bff/publishable-keys/${key.id}`);

    const response = await call(cookie, 'POST', `/bff/publishable-keys/${key.id}/roll`, { overlapHours: 1 });

    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ status: 404, detail: 'Unknown publishable key.' });
  });

  it("keeps organisations apart: another organisation's key answers 404 and keeps its value", async () => {
    const alice = await t.users.signUp();
    const bob = await t.users.signUp();
    const key = await keyOf(alice.cookie);

    const response = await call(bob.cookie, 'POST', `/bff/publishable-keys/${key.id}/roll`, { overlapHours: 1 });

    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 404, detail: 'Unknown publishable key.' });
    expect((await call(alice.cookie, 'GET', '/bff/publishable-keys')).json()).toEqual({ publishableKeys: [key] });
  });

  it.each([
    ['a missing overlap', {}, 'This field is required'],
    ['a text overlap', { overlapHours: '6' }, 'This field is required'],
    ['a negative overlap', { overlapHours: -1 }, 'Minimum is 0'],
    ['an overlap over 24 hours', { overlapHours: 25 }, 'Maximum is 24'],
    ['a fraction of an hour', { overlapHours: 1.5 }, 'overlapHours must be a whole number of hours'],
  ])('refuses %s with a 400 naming the field, the key unchanged', async (_case, payload, message) => {
    const { cookie } = await t.users.signUp();
    const key = await keyOf(cookie);

    const response = await call(cookie, 'POST', `/bff/publishable-keys/${key.id}/roll`, payload);

    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json().errors).toContainEqual({ field: 'overlapHours', message });
    expect((await call(cookie, 'GET', '/bff/publishable-keys')).json()).toEqual({ publishableKeys: [key] });
  });

  it('refuses a malformed key id with 400', async () => {
    const { cookie } = await t.users.signUp();
    const response = await call(cookie, 'POST', '/bff/publishable-keys/not-a-uuid/roll', { overlapHours: 1 });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([{ field: 'publishableKeyId', message: 'Unknown publishable key' }]);
  });

  it('needs a session', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/bff/publishable-keys/6f1d2c3b-4a59-4e68-8d7c-1b2a3c4d5e6f/roll',
      payload: { overlapHours: 1 },
    });
    expect(response.statusCode).toBe(401);
  });
});
