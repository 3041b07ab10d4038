import { randomUUID } from 'node:crypto';
import { webhookEventTypes } from '@meterway/contracts';
import { setupTestDb } from '@meterway/db/testing';
import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { autoTopUpCharges, keySpend, organizations, publishableKeys, webhookDeliveries, webhookEvents } from '../../db/schema/index.js';
import { checkAlerts } from '../alerts/check-alerts.js';
import { markChargeFailed } from '../auto-top-up/charges.js';
import { postEntry } from '../credit/ledger.js';
import { newKeyValue } from '../keys/key-value.js';
import { dollarsToNanos, periodStart } from '../money.js';
import { emitEvent } from './emit-event.js';
import { createWebhookEndpoint } from './webhook-endpoints.js';

const testDb = setupTestDb({ schema, migrations });
const mailer = { send: async () => {} };

/** An organisation with one endpoint listening to every event. */
async function listeningOrganization() {
  const organizationId = randomUUID();
  await testDb.db.insert(organizations).values({ id: organizationId, name: 'Acme Labs' });
  const viewer = { organizationId, personId: null, email: 'system' };
  const endpoint = await createWebhookEndpoint(
    testDb.db,
    viewer,
    { url: 'http://127.0.0.1:9/hooks', events: [...webhookEventTypes] },
    { production: false, now: new Date() },
  );
  return { organizationId, endpoint };
}

const eventsOf = (organizationId: string) =>
  testDb.db.select().from(webhookEvents).where(eq(webhookEvents.organizationId, organizationId)).orderBy(asc(webhookEvents.createdAt), asc(webhookEvents.type));
const post = (organizationId: string, kind: 'top_up' | 'usage_charge', dollars: number) =>
  testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind, amountNanos: dollarsToNanos(dollars), reference: randomUUID() }));

describe('emitting webhook events', () => {
  it('commits with its cause or not at all, with one pending delivery per listening endpoint', async () => {
    const { organizationId, endpoint } = await listeningOrganization();
    await testDb.db
      .transaction(async (tx) => {
        await emitEvent(tx, { organizationId, type: 'balance.low', data: { balanceAmount: 1, thresholdAmount: 5 } });
        throw new Error('the cause failed');
      })
      .catch(() => {});
    expect(await eventsOf(organizationId)).toEqual([]);
    await post(organizationId, 'top_up', 3);
    const [event] = await eventsOf(organizationId);
    expect(event).toMatchObject({ type: 'credit.added', data: { kind: 'top_up', amount: 3, balanceAfterAmount: 3, entryId: expect.any(String) } });
    expect(await testDb.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event!.id))).toMatchObject([
      { endpointId: endpoint.id, status: 'pending', attemptCount: 0, nextAttemptAt: event!.createdAt },
    ]);
    // A debit adds no credit: no event.
    await post(organizationId, 'usage_charge', -1);
    expect(await eventsOf(organizationId)).toHaveLength(1);
  });

  it('balance.low and key.budget_threshold once per claimed alert, whether or not mail goes out', async () => {
    const { organizationId } = await listeningOrganization();
    await post(organizationId, 'top_up', 10);
    await post(organizationId, 'usage_charge', -7.5);
    const keyId = randomUUID();
    await testDb.db
      .insert(publishableKeys)
      .values({ id: keyId, organizationId, name: 'Storefront', value: newKeyValue(), spendLimitNanos: dollarsToNanos(10), allowedOrigins: [] });
    await testDb.db
      .insert(keySpend)
      .values({ organizationId, publishableKeyId: keyId, periodStart: periodStart(new Date()), spentNanos: dollarsToNanos(8.25) });
    const failing = { send: async () => Promise.reject(new Error('no mail today')) };
    await checkAlerts({ db: testDb.db, mailer: failing, consoleUrl: 'https://console.example.com' }, new Date());
    await checkAlerts({ db: testDb.db, mailer, consoleUrl: 'https://console.example.com' }, new Date());
    const events = (await eventsOf(organizationId)).filter((event) => event.type !== 'credit.added');
    expect(events.map((event) => [event.type, event.data])).toEqual(
      expect.arrayContaining([
        ['balance.low', { balanceAmount: 2.5, thresholdAmount: 5 }],
        ['key.budget_threshold', { keyId, name: 'Storefront', kind: 'publishable', percent: 50, spentAmount: 8.25, budgetAmount: 10 }],
        ['key.budget_threshold', { keyId, name: 'Storefront', kind: 'publishable', percent: 80, spentAmount: 8.25, budgetAmount: 10 }],
      ]),
    );
    expect(events).toHaveLength(3);
  });

  it('auto_top_up.failed with the reason and the amount', async () => {
    const { organizationId } = await listeningOrganization();
    const chargeId = randomUUID();
    await testDb.db
      .insert(autoTopUpCharges)
      .values({ id: chargeId, organizationId, provider: 'sandbox', amountNanos: dollarsToNanos(20), status: 'processing' });
    await markChargeFailed(testDb.db, { organizationId, chargeId, message: 'Your card was declined.', now: new Date() });
    await markChargeFailed(testDb.db, { organizationId, chargeId, message: 'Your card was declined.', now: new Date() });
    expect((await eventsOf(organizationId)).map((event) => [event.type, event.data])).toEqual([
      ['auto_top_up.failed', { chargeId, reason: 'Your card was declined.', amount: 20 }],
    ]);
  });
});
