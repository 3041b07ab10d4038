import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setupTestDb } from '@meterway/db/testing';
import { and, eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { autoTopUpCharges, checkoutSessions, creditEntries, organizations, paymentObjects } from '../../db/schema/index.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { markSucceeded } from './checkout-sessions.js';
import { organizationOfPayment, recordPaymentObject } from './payment-objects.js';

const testDb = setupTestDb({ schema, migrations });
const db = () => testDb.db;
afterEach(async () => expectLedgerConsistent(db()));

async function organization() {
  const id = randomUUID();
  await db().insert(organizations).values({ id, name: 'Payments' });
  return id;
}

async function openTopUp(organizationId: string) {
  const id = `cs_test_${randomUUID()}`;
  await db()
    .insert(checkoutSessions)
    .values({ id, organizationId, provider: 'stripe', creditNanos: 10_000_000_000n, expiresAt: new Date(Date.now() + 60_000) });
  return id;
}

const now = new Date();

describe('payment_objects', () => {
  it('keeps a payment one organisation’s: recorded again for it changes nothing, for another it is a conflict (409)', async () => {
    const [first, second] = [await organization(), await organization()];
    const id = `pi_${randomUUID()}`;
    await db().transaction((tx) => recordPaymentObject(tx, { provider: 'stripe', id, organizationId: first }));
    await db().transaction((tx) => recordPaymentObject(tx, { provider: 'stripe', id, organizationId: first }));
    await expect(db().transaction((tx) => recordPaymentObject(tx, { provider: 'stripe', id, organizationId: second }))).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/recorded for another organisation/),
    });
    expect(await organizationOfPayment(db(), 'stripe', id)).toBe(first);
    // The same id at another provider is another payment.
    expect(await organizationOfPayment(db(), 'sandbox', id)).toBeUndefined();
  });

  it('credits a payment once across organisations: a second top-up naming it is rolled back, credit and all', async () => {
    const [first, second] = [await organization(), await organization()];
    const paymentIntentId = `pi_${randomUUID()}`;
    const paid = await openTopUp(first);
    const other = await openTopUp(second);
    expect(await markSucceeded(db(), { organizationId: first, id: paid }, now, { paymentIntentId })).toBe(true);
    await expect(markSucceeded(db(), { organizationId: second, id: other }, now, { paymentIntentId })).rejects.toThrow(/recorded for another organisation/);
    const [row] = await db()
      .select()
      .from(checkoutSessions)
      .where(and(eq(checkoutSessions.organizationId, second), eq(checkoutSessions.id, other)));
    expect(row).toMatchObject({ status: 'IN_PROGRESS', paymentIntentId: null });
    expect(await db().select().from(creditEntries).where(eq(creditEntries.organizationId, second))).toEqual([]);
    expect(await organizationOfPayment(db(), 'stripe', paymentIntentId)).toBe(first);
  });

  it('is backfilled by migration 0025 from the payment intents of top-ups and auto top-up charges', async () => {
    const organizationId = await organization();
    const topUp = await openTopUp(organizationId);
    const chargeId = randomUUID();
    await db().update(checkoutSessions).set({ paymentIntentId: 'pi_backfill_top_up' }).where(eq(checkoutSessions.id, topUp));
    await db()
      .insert(autoTopUpCharges)
      .values({ id: chargeId, organizationId, provider: 'sandbox', amountNanos: 20_000_000_000n, paymentIntentId: `pi_sandbox_${chargeId}` });
    await openTopUp(organizationId);
    // The rows as they stood before 0025: recorded on the tables only (those of the tests before too, backfilled again).
    await db().delete(paymentObjects);
    const statements = readFileSync(new URL('../../db/migrations/0025_payment_objects.sql', import.meta.url), 'utf8').split('--> statement-breakpoint');
    await db().execute(sql.raw(statements.at(-1) ?? ''));
    const directory = await db()
      .select({ provider: paymentObjects.provider, id: paymentObjects.id, organizationId: paymentObjects.organizationId })
      .from(paymentObjects)
      .where(eq(paymentObjects.organizationId, organizationId));
    expect(directory.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { provider: 'stripe', id: 'pi_backfill_top_up', organizationId },
      { provider: 'sandbox', id: `pi_sandbox_${chargeId}`, organizationId },
    ]);
  });
});
