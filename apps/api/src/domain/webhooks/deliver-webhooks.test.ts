import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createDb, type Database } from '@meterway/db';
import { setupTestDb } from '@meterway/db/testing';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { organizations, webhookAttempts, webhookDeliveries, webhookEvents } from '../../db/schema/index.js';
import { postEntry } from '../credit/ledger.js';
import { postPromotionalGrant } from '../credit/grant-credit.js';
import { dollarsToNanos } from '../money.js';
import { deliverWebhooks, keptAttempts } from './deliver-webhooks.js';
import { emitEvent } from './emit-event.js';
import { retryForMs } from './retry-schedule.js';
import { startWebhookReceiver } from './testing/webhook-receiver.js';
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookDeliveries } from './webhook-endpoints.js';
import { createWebhookSender, type WebhookSender } from './webhook-sender.js';

type Verify = (rawBody: string | Buffer, header: string, secret: string, options?: { toleranceSeconds?: number; now?: number }) => boolean;
// The documented snippet itself (docs/webhooks.md includes this file).
const snippetUrl = new URL('../../../examples/verify-webhook-signature.mjs', import.meta.url).href;
const { verifyWebhookSignature } = (await import(snippetUrl)) as { verifyWebhookSignature: Verify };

const testDb = setupTestDb({ schema, migrations });
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let sender: WebhookSender;
let impatientSender: WebhookSender;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // Development rules (a receiver on 127.0.0.1) and the production timeout: a busy machine must not turn a slow answer into a retry.
  sender = createWebhookSender({ production: false });
  // A short timeout, so the stalled receiver costs little.
  impatientSender = createWebhookSender({ production: false, timeoutMs: 300 });
});
afterAll(async () => {
  await sender?.close();
  await impatientSender?.close();
  await receiver?.close();
});
afterEach(() => receiver.reset());

const system = (organizationId: string) => ({ organizationId, personId: null, email: 'system' });
const seconds = (from: Date, n: number) => new Date(from.getTime() + n * 1000);
const noJitter = () => 0.5;
const round = (now: Date, db: Database = testDb.db, by: WebhookSender = sender) => deliverWebhooks({ db, sender: by, random: noJitter }, now);

async function organizationListening(events: ('credit.added' | 'balance.low')[] = ['credit.added'], path = '/hooks') {
  const organizationId = randomUUID();
  await testDb.db.insert(organizations).values({ id: organizationId, name: 'Acme Labs' });
  const endpoint = await createWebhookEndpoint(
    testDb.db,
    system(organizationId),
    { url: `${receiver.url}${path}`, events },
    { production: false, now: new Date() },
  );
  return { organizationId, endpoint: { ...endpoint, secret: endpoint.secret! } };
}

const topUp = (organizationId: string, dollars: number) =>
  testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollarsToNanos(dollars), reference: randomUUID() }));

const deliveriesOf = (organizationId: string, endpointId: string) => listWebhookDeliveries(testDb.db, { organizationId }, endpointId);

describe('webhook deliveries', () => {
  it('sends credit.added for a top-up and a grant, signed so that the documented snippet verifies it, and once', async () => {
    const { organizationId, endpoint } = await organizationListening();
    await topUp(organizationId, 20);
    await postPromotionalGrant(testDb.db, {
      organizationId,
      amountNanos: dollarsToNanos(5),
      note: 'Welcome',
      expiresAt: new Date(Date.now() + 86_400_000),
      actor: system(organizationId),
    });
    expect(await round(new Date())).toEqual({ succeeded: 2, retrying: 0, failed: 0 });
    expect(await round(seconds(new Date(), 3600))).toEqual({ succeeded: 0, retrying: 0, failed: 0 });

    const events = receiver.events();
    expect(events.map((event) => [event.type, event.data.kind, event.data.amount, event.data.balanceAfterAmount])).toEqual([
      ['credit.added', 'top_up', 20, 20],
      ['credit.added', 'grant', 5, 25],
    ]);
    for (const [index, request] of receiver.received.entries()) {
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['meterway-event-id']).toBe(events[index]!.id);
      expect(events[index]!.id).toMatch(/^evt_[0-9a-f]{24}$/);
      const header = request.headers['meterway-signature'] as string;
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(verifyWebhookSignature(request.body, header, endpoint.secret)).toBe(true);
      // A changed body, another secret, or the same delivery replayed after the window: refused.
      expect(verifyWebhookSignature(request.body.replace('20', '2000'), header, endpoint.secret)).toBe(false);
      expect(verifyWebhookSignature(request.body, header, 'whsec_another')).toBe(false);
      expect(verifyWebhookSignature(request.body, header, endpoint.secret, { now: Date.now() + 301_000 })).toBe(false);
      expect(
        verifyWebhookSignature(
          request.body,
          header.replace(/t=\d+/, (t) => `t=${Number(t.slice(2)) - 1}`),
          endpoint.secret,
        ),
      ).toBe(false);
    }
    expect((await deliveriesOf(organizationId, endpoint.id)).map((delivery) => [delivery.status, delivery.attemptCount, delivery.attempts.length])).toEqual([
      ['succeeded', 1, 1],
      ['succeeded', 1, 1],
    ]);
  });

  it('emits nothing when no live endpoint listens for the type, and nothing to a deleted endpoint', async () => {
    const { organizationId, endpoint } = await organizationListening(['balance.low']);
    const eventsBefore = await testDb.db.select().from(webhookEvents).where(eq(webhookEvents.organizationId, organizationId));
    await topUp(organizationId, 10);
    await deleteWebhookEndpoint(testDb.db, system(organizationId), endpoint.id, new Date());
    await testDb.db.transaction((tx) => emitEvent(tx, { organizationId, type: 'balance.low', data: { balanceAmount: 1, thresholdAmount: 5 } }));
    expect(await testDb.db.select().from(webhookEvents).where(eq(webhookEvents.organizationId, organizationId))).toEqual(eventsBefore);
    await round(new Date());
    expect(receiver.received).toHaveLength(0);
  });

  it('retries after 500s on the schedule, then succeeds, with the attempts recorded', async () => {
    const { organizationId, endpoint } = await organizationListening();
    await topUp(organizationId, 1);
    const start = new Date();
    receiver.answerNext(500, 503);
    expect(await round(start)).toMatchObject({ retrying: 1 });
    let [delivery] = await deliveriesOf(organizationId, endpoint.id);
    expect(delivery).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: seconds(start, 30).toISOString() });
    expect(delivery!.attempts).toEqual([{ at: start.toISOString(), statusCode: 500, error: 'The endpoint answered 500.', durationMs: expect.any(Number) }]);

    // Not due before its time; the second attempt 30 s later, the third 2 minutes after that.
    expect(await round(seconds(start, 29))).toEqual({ succeeded: 0, retrying: 0, failed: 0 });
    expect(await round(seconds(start, 30))).toMatchObject({ retrying: 1 });
    [delivery] = await deliveriesOf(organizationId, endpoint.id);
    expect(delivery!.nextAttemptAt).toBe(seconds(start, 150).toISOString());
    expect(await round(seconds(start, 150))).toMatchObject({ succeeded: 1 });

    [delivery] = await deliveriesOf(organizationId, endpoint.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 3, nextAttemptAt: null });
    expect(delivery!.attempts.map((attempt) => [attempt.at, attempt.statusCode])).toEqual([
      [seconds(start, 150).toISOString(), 200],
      [seconds(start, 30).toISOString(), 503],
      [start.toISOString(), 500],
    ]);
    // The same event each time.
    expect(new Set(receiver.events().map((event) => event.id)).size).toBe(1);
  });

  it('retries an endpoint that does not answer within the timeout', async () => {
    const { organizationId, endpoint } = await organizationListening();
    await topUp(organizationId, 1);
    const start = new Date();
    receiver.answerNext('stall');
    expect(await round(start, testDb.db, impatientSender)).toMatchObject({ retrying: 1 });
    let [delivery] = await deliveriesOf(organizationId, endpoint.id);
    expect(delivery!.attempts).toEqual([{ at: start.toISOString(), statusCode: null, error: 'No answer within 0.3 s.', durationMs: expect.any(Number) }]);
    expect(delivery!.attempts[0]!.durationMs).toBeGreaterThanOrEqual(250);
    expect(await round(seconds(start, 30))).toMatchObject({ succeeded: 1 });
    [delivery] = await deliveriesOf(organizationId, endpoint.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 2 });
  });

  it('gives up 24 hours after the event, keeping the latest attempts', async () => {
    const { organizationId, endpoint } = await organizationListening();
    await topUp(organizationId, 1);
    const [event] = await testDb.db.select().from(webhookEvents).where(eq(webhookEvents.organizationId, organizationId));
    receiver.answerNext(...Array.from({ length: 11 }, () => 500));
    // Each round when the delivery is next due: the schedule ends with an attempt at exactly 24 hours.
    let now = new Date();
    for (let attempt = 0; attempt < 20; attempt++) {
      await round(now);
      const [delivery] = await deliveriesOf(organizationId, endpoint.id);
      if (delivery!.status !== 'pending') break;
      now = new Date(delivery!.nextAttemptAt!);
    }
    const [delivery] = await deliveriesOf(organizationId, endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(delivery!.attempts[0]!.at).toBe(new Date(event!.createdAt.getTime() + retryForMs).toISOString());
    expect(delivery!.attemptCount).toBe(11);
    expect(delivery!.attempts).toHaveLength(keptAttempts);
    expect(await testDb.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, delivery!.id))).toHaveLength(keptAttempts);
  });

  it('a delivery whose instance stopped before recording it is sent again once its lease ends', async () => {
    const { organizationId, endpoint } = await organizationListening();
    await topUp(organizationId, 1);
    const start = new Date();
    // Claimed as a round would, and never recorded.
    await testDb.db
      .update(webhookDeliveries)
      .set({ attemptCount: 1, nextAttemptAt: seconds(start, 60) })
      .where(eq(webhookDeliveries.endpointId, endpoint.id));
    expect(await round(seconds(start, 59))).toEqual({ succeeded: 0, retrying: 0, failed: 0 });
    expect(await round(seconds(start, 60))).toMatchObject({ succeeded: 1 });
    expect((await deliveriesOf(organizationId, endpoint.id))[0]).toMatchObject({ status: 'succeeded', attemptCount: 2 });
  });
});

describe('docs/webhooks.md', () => {
  it('shows exactly the verification snippet these tests run', async () => {
    const [doc, snippet] = await Promise.all([
      readFile(new URL('../../../../../docs/webhooks.md', import.meta.url), 'utf8'),
      readFile(new URL(snippetUrl), 'utf8'),
    ]);
    expect(doc).toContain(`\`\`\`js\n${snippet}\`\`\``);
  });
});

describe('two workers on one database', () => {
  let other: { db: Database; close: () => Promise<void> };
  beforeAll(async () => {
    const databaseUrl = testDb.handle.databaseUrl;
    if (!databaseUrl) {
      other = { db: testDb.db, close: async () => {} };
      return;
    }
    const handle = await createDb({ schema, databaseUrl, dataDir: '', service: 'api' });
    other = { db: handle.db, close: () => handle.close() };
  });
  afterAll(async () => other?.close());

  it('sends each delivery once, however their rounds overlap', async () => {
    const { organizationId } = await organizationListening();
    await Promise.all(Array.from({ length: 30 }, () => topUp(organizationId, 1)));
    const now = new Date();
    const outcomes = await Promise.all([round(now), round(now, other.db), round(now), round(now, other.db)]);
    expect(outcomes.reduce((sum, outcome) => sum + outcome.succeeded, 0)).toBe(30);
    const ids = receiver.events().map((event) => event.id);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
  });
});
