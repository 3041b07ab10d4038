import { randomUUID } from 'node:crypto';
import { createDb } from '@meterway/db';
import { setupTestDb } from '@meterway/db/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.js';
import { type ApiDb, migrations, schema } from '../db/index.js';
import { organizations, webhookDeliveries } from '../db/schema/index.js';
import { postEntry } from '../domain/credit/ledger.js';
import { dollarsToNanos } from '../domain/money.js';
import { startWebhookReceiver } from '../domain/webhooks/testing/webhook-receiver.js';
import { createWebhookEndpoint } from '../domain/webhooks/webhook-endpoints.js';
import { loadApiConfig } from '../env.js';

const testDb = setupTestDb({ schema, migrations });
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
type Instance = { app: FastifyInstance; close: () => Promise<void>; rounds: (count: number) => Promise<void> };
const instances: Instance[] = [];

/** An api instance whose webhook worker runs every 100 ms; on Postgres with its own connection pool, as in production. */
async function startInstance(own: boolean): Promise<Instance> {
  const waiters: (() => void)[] = [];
  const databaseUrl = testDb.handle.databaseUrl;
  const db: ApiDb = own && databaseUrl ? await createDb({ schema, databaseUrl, dataDir: '', service: 'api' }) : testDb.handle;
  const app = await createApp({
    config: loadApiConfig({ LOG_LEVEL: 'silent', WEBHOOK_INTERVAL_MS: '100' }),
    db,
    onWebhookRound: () => waiters.splice(0).forEach((resolve) => resolve()),
  });
  return {
    app,
    close: async () => {
      await app.close();
      if (db !== testDb.handle) await db.close();
    },
    rounds: async (count) => {
      for (let round = 0; round < count; round++) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  instances.push(await startInstance(false), await startInstance(true));
});
afterAll(async () => {
  for (const instance of instances) await instance.close();
  await receiver?.close();
});

describe(`the webhook worker on two api instances${process.env.DATABASE_URL ? ' sharing one Postgres' : ''}`, () => {
  it('delivers each event exactly once', async () => {
    const organizationId = randomUUID();
    await testDb.db.insert(organizations).values({ id: organizationId, name: 'Acme Labs' });
    const viewer = { organizationId, personId: null, email: 'system' };
    for (const path of ['/one', '/two']) {
      await createWebhookEndpoint(testDb.db, viewer, { url: `${receiver.url}${path}`, events: ['credit.added'] }, { production: false, now: new Date() });
    }
    await Promise.all(
      Array.from({ length: 40 }, () =>
        testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollarsToNanos(1), reference: randomUUID() })),
      ),
    );
    // Until every delivery is done, then a few more rounds of both workers.
    for (let wait = 0; wait < 100; wait++) {
      const pending = (await testDb.db.select().from(webhookDeliveries)).filter((delivery) => delivery.status === 'pending');
      if (pending.length === 0) break;
      await instances[0]!.rounds(1);
    }
    await Promise.all(instances.map((instance) => instance.rounds(3)));

    const deliveries = await testDb.db.select().from(webhookDeliveries);
    expect(deliveries).toHaveLength(80);
    expect(deliveries.every((delivery) => delivery.status === 'succeeded' && delivery.attemptCount === 1)).toBe(true);
    const sent = receiver.received.map((request) => `${request.headers['meterway-event-id'] as string} ${JSON.parse(request.body).id as string}`);
    expect(sent).toHaveLength(80);
    expect(new Set(sent).size).toBe(40);
    expect(new Set(receiver.events().map((event) => event.id)).size).toBe(40);
  });
});
