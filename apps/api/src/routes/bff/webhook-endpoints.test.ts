import { randomUUID } from 'node:crypto';
import { maxWebhookEndpoints } from '@meterway/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries } from '../../db/schema/index.js';
import { postEntry } from '../../domain/credit/ledger.js';
import { dollarsToNanos } from '../../domain/money.js';
import { deliverWebhooks } from '../../domain/webhooks/deliver-webhooks.js';
import { startWebhookReceiver } from '../../domain/webhooks/testing/webhook-receiver.js';
import { createWebhookSender } from '../../domain/webhooks/webhook-sender.js';
import { setupTestApp, type TestMember } from '../../testing/setup-test-app.js';

// The app's own worker stays idle: the test runs its rounds itself, with its own clock.
const t = setupTestApp({ WEBHOOK_INTERVAL_MS: '3600000' }, { identity: true });
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
const sender = createWebhookSender({ production: false, timeoutMs: 1000 });
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await sender.close();
  await receiver?.close();
});

type Json = Record<string, any>;
type User = TestMember;

const signUp = () => t.signUpMember();

const call = (user: User, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Json) =>
  t.app.inject({ method, url, headers: { cookie: user.cookie }, ...(payload ? { payload } : {}) });
const register = (user: User, body: Json = { url: `${receiver.url}/hooks`, events: ['credit.added', 'key.blocked_caller'] }) =>
  call(user, 'POST', '/bff/webhook-endpoints', body);
const round = (now = new Date()) => deliverWebhooks({ db: t.testDb.db, sender }, now);

let owner: User;
let other: User;
beforeAll(async () => {
  owner = await signUp();
  other = await signUp();
}, 60_000);

describe('/bff/webhook-endpoints', () => {
  it('registers an endpoint with its secret shown once, lists it without the secret, and deletes it', async () => {
    const created = await register(owner, { url: `${receiver.url}/a`, events: ['credit.added', 'credit.added', 'balance.low'] });
    expect(created.statusCode, created.body).toBe(201);
    const endpoint = created.json();
    expect(endpoint).toEqual({
      id: expect.any(String),
      url: `${receiver.url}/a`,
      events: ['credit.added', 'balance.low'],
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{32}$/),
    });
    const listed = await call(owner, 'GET', '/bff/webhook-endpoints');
    expect(listed.json().webhookEndpoints).toContainEqual({ id: endpoint.id, url: endpoint.url, events: endpoint.events, createdAt: endpoint.createdAt });
    expect(listed.body).not.toContain('whsec_');

    expect((await call(owner, 'DELETE', `/bff/webhook-endpoints/${endpoint.id}`)).statusCode).toBe(204);
    expect((await call(owner, 'GET', '/bff/webhook-endpoints')).json().webhookEndpoints.map((listedEndpoint: Json) => listedEndpoint.id)).not.toContain(
      endpoint.id,
    );
    expect((await call(owner, 'DELETE', `/bff/webhook-endpoints/${endpoint.id}`)).statusCode).toBe(404);
    expect((await call(owner, 'GET', `/bff/webhook-endpoints/${endpoint.id}/deliveries`)).statusCode).toBe(404);

    const audit = await t.testDb.db.select().from(auditEntries).where(eq(auditEntries.organizationId, owner.organizationId));
    expect(audit.filter((entry) => entry.action.startsWith('webhook_endpoint.')).map((entry) => [entry.action, entry.target, entry.actorEmail])).toEqual([
      ['webhook_endpoint.created', endpoint.url, owner.email],
      ['webhook_endpoint.deleted', endpoint.url, owner.email],
    ]);
  });

  it('refuses what the contract refuses (400) and more than the limit of endpoints (409)', async () => {
    const user = await signUp();
    for (const body of [
      { url: 'ftp://example.com/hooks', events: ['credit.added'] },
      { url: 'not a url', events: ['credit.added'] },
      { url: `${receiver.url}/hooks`, events: [] },
      { url: `${receiver.url}/hooks`, events: ['credit.removed'] },
    ]) {
      const refused = await register(user, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
    }
    for (let index = 0; index < maxWebhookEndpoints; index++) expect((await register(user)).statusCode).toBe(201);
    const over = await register(user);
    expect(over.statusCode).toBe(409);
    expect(over.json().detail).toBe(`An organisation can have at most ${maxWebhookEndpoints} webhook endpoints. Delete one first.`);
  });

  it("lets owners, admins and developers manage endpoints, not billing; another organisation's endpoints are unknown (404)", async () => {
    const endpoint = (await register(owner)).json();
    for (const role of ['admin', 'developer'] as const) {
      await t.setRole(owner, role);
      expect((await call(owner, 'GET', '/bff/webhook-endpoints')).statusCode).toBe(200);
      expect((await call(owner, 'GET', `/bff/webhook-endpoints/${endpoint.id}/deliveries`)).statusCode).toBe(200);
    }
    await t.setRole(owner, 'billing');
    expect((await call(owner, 'GET', '/bff/webhook-endpoints')).statusCode).toBe(403);
    expect((await register(owner)).statusCode).toBe(403);
    expect((await call(owner, 'DELETE', `/bff/webhook-endpoints/${endpoint.id}`)).statusCode).toBe(403);
    expect((await call(owner, 'GET', `/bff/webhook-endpoints/${endpoint.id}/deliveries`)).statusCode).toBe(403);
    await t.setRole(owner, 'owner');

    expect((await call(other, 'GET', '/bff/webhook-endpoints')).json().webhookEndpoints.map((listed: Json) => listed.id)).not.toContain(endpoint.id);
    expect((await call(other, 'GET', `/bff/webhook-endpoints/${endpoint.id}/deliveries`)).statusCode).toBe(404);
    expect((await call(other, 'DELETE', `/bff/webhook-endpoints/${endpoint.id}`)).statusCode).toBe(404);
    expect((await call(other, 'GET', `/bff/webhook-endpoints/${randomUUID()}/deliveries`)).statusCode).toBe(404);
    expect((await call(owner, 'GET', '/bff/webhook-endpoints/not-a-uuid/deliveries')).statusCode).toBe(400);
    expect((await call(owner, 'DELETE', `/bff/webhook-endpoints/${endpoint.id}`)).statusCode).toBe(204);
  });

  it('shows each delivery with its attempts, newest first: credit added, then a blocked caller', async () => {
    const user = await signUp();
    const endpoint = (await register(user)).json();
    await t.testDb.db.transaction((tx) =>
      postEntry(tx, { organizationId: user.organizationId, kind: 'top_up', amountNanos: dollarsToNanos(12.5), reference: randomUUID() }),
    );
    const key = (
      await call(user, 'POST', '/bff/publishable-keys', { name: 'Storefront', budget: 10, budgetType: 'monthly', allowedOrigins: ['https://shop.example.com'] })
    ).json();
    expect((await call(user, 'POST', `/bff/publishable-keys/${key.id}/blocks`, { clientAddress: '203.0.113.9' })).statusCode).toBe(201);

    receiver.answerNext(500);
    const start = new Date();
    await round(start);
    await round(new Date(start.getTime() + 60_000));
    const deliveries = (await call(user, 'GET', `/bff/webhook-endpoints/${endpoint.id}/deliveries`)).json().deliveries;
    expect(deliveries).toHaveLength(2);
    const [blocked, added] = deliveries;
    expect(blocked).toMatchObject({ type: 'key.blocked_caller', status: 'succeeded', attemptCount: 1, nextAttemptAt: null });
    expect(added).toMatchObject({ type: 'credit.added', status: 'succeeded', attemptCount: 2, nextAttemptAt: null });
    expect(added.attempts.map((attempt: Json) => attempt.statusCode)).toEqual([200, 500]);

    const events = receiver.events();
    expect(events.find((event) => event.type === 'key.blocked_caller')).toMatchObject({
      id: blocked.eventId,
      data: { keyId: key.id, name: 'Storefront', kind: 'publishable', clientAddress: '203.0.113.9' },
    });
    expect(events.find((event) => event.type === 'credit.added')).toMatchObject({
      id: added.eventId,
      data: { kind: 'top_up', amount: 12.5, balanceAfterAmount: 12.5 },
    });
  });
});
