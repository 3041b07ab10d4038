import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { autoTopUpCharges, autoTopUps, checkoutSessions, creditBalances, creditEntries, organizations } from '../../db/schema/index.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { postEntry } from '../credit/ledger.js';
import { markChargeFailed, markChargeSucceeded } from './charges.js';
import { saveCard } from './save-card.js';

const testDb = setupTestDb({ schema, migrations });
const db = () => testDb.db;
afterEach(async () => expectLedgerConsistent(db()));

/** An organisation with $2 of credit, auto top-up on ($5 threshold, $20 charges) with a saved card, and one claimed charge. */
async function claimedCharge() {
  const organizationId = randomUUID();
  await db().insert(organizations).values({ id: organizationId, name: 'Charges' });
  await db().transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: 2_000_000_000n, reference: randomUUID() }));
  await db().insert(autoTopUps).values({
    organizationId,
    enabled: true,
    thresholdNanos: 5_000_000_000n,
    topUpNanos: 20_000_000_000n,
    monthlyCapNanos: 100_000_000_000n,
    provider: 'sandbox',
    paymentMethodId: 'pm_sandbox_succeed_x',
    cardBrand: 'visa',
    cardLast4: '4242',
  });
  const result = (await db().execute(sql`select app.claim_auto_top_up(${organizationId}, now()) as id`)) as unknown as { rows: { id: string }[] };
  return { organizationId, chargeId: result.rows[0]!.id };
}

const statusOf = async (chargeId: string) => (await db().select().from(autoTopUpCharges).where(eq(autoTopUpCharges.id, chargeId)))[0]!;
const entriesOf = (organizationId: string) => db().select().from(creditEntries).where(eq(creditEntries.organizationId, organizationId));
const settingsOf = async (organizationId: string) => (await db().select().from(autoTopUps).where(eq(autoTopUps.organizationId, organizationId)))[0]!;
const now = new Date();

describe('markChargeSucceeded', () => {
  it('credits the charge once, however often the success is told', async () => {
    const { organizationId, chargeId } = await claimedCharge();
    expect(await markChargeSucceeded(db(), { organizationId, chargeId, paymentIntentId: 'pi_1', now })).toBe(true);
    expect(await markChargeSucceeded(db(), { organizationId, chargeId, paymentIntentId: 'pi_1', now })).toBe(false);
    expect(await statusOf(chargeId)).toMatchObject({ status: 'succeeded', paymentIntentId: 'pi_1' });
    const credited = (await entriesOf(organizationId)).filter((entry) => entry.kind === 'auto_top_up');
    expect(credited).toMatchObject([{ amountNanos: 20_000_000_000n, reference: chargeId, balanceAfterNanos: 22_000_000_000n }]);
  });

  it('wins over an earlier failure, which cannot undo it', async () => {
    const { organizationId, chargeId } = await claimedCharge();
    expect(await markChargeFailed(db(), { organizationId, chargeId, message: 'Your card was declined.', now })).toBe(true);
    expect(await markChargeSucceeded(db(), { organizationId, chargeId, now })).toBe(true);
    expect(await markChargeFailed(db(), { organizationId, chargeId, message: 'Your card was declined.', now })).toBe(false);
    expect((await statusOf(chargeId)).status).toBe('succeeded');
    expect((await entriesOf(organizationId)).filter((entry) => entry.kind === 'auto_top_up')).toHaveLength(1);
  });
});

describe('markChargeFailed', () => {
  it('turns auto top-up off with the reason, and settlement no longer sees its threshold', async () => {
    const { organizationId, chargeId } = await claimedCharge();
    await db().update(creditBalances).set({ autoTopUpBelowNanos: 5_000_000_000n }).where(eq(creditBalances.organizationId, organizationId));
    expect(await markChargeFailed(db(), { organizationId, chargeId, paymentIntentId: 'pi_2', message: 'Your card was declined.', now })).toBe(true);
    expect(await statusOf(chargeId)).toMatchObject({
      status: 'failed',
      failureMessage: 'Your card was declined.',
      paymentIntentId: 'pi_2',
      failureMailedAt: null,
    });
    expect(await settingsOf(organizationId)).toMatchObject({ enabled: false, disabledReason: 'Your card was declined.' });
    const [balance] = await db().select().from(creditBalances).where(eq(creditBalances.organizationId, organizationId));
    expect(balance?.autoTopUpBelowNanos).toBeNull();
  });
});

describe('saveCard', () => {
  it('saves the card of a setup session once, keeping the reason auto top-up turned off', async () => {
    const { organizationId, chargeId } = await claimedCharge();
    await markChargeFailed(db(), { organizationId, chargeId, message: 'Your card was declined.', now });
    const id = `cs_${randomUUID()}`;
    await db()
      .insert(checkoutSessions)
      .values({ id, organizationId, provider: 'sandbox', mode: 'setup', creditNanos: 0n, expiresAt: new Date(Date.now() + 60_000) });
    expect(await saveCard(db(), { organizationId, checkoutSessionId: id, paymentMethodId: 'pm_new', brand: 'mastercard', last4: '4444', now })).toBe(true);
    expect(await saveCard(db(), { organizationId, checkoutSessionId: id, paymentMethodId: 'pm_other', brand: 'visa', last4: '0000', now })).toBe(false);
    expect(await settingsOf(organizationId)).toMatchObject({
      enabled: false,
      paymentMethodId: 'pm_new',
      cardBrand: 'mastercard',
      cardLast4: '4444',
      disabledReason: 'Your card was declined.',
    });
  });

  it('creates the settings with the defaults, off, and never takes a payment session', async () => {
    const organizationId = randomUUID();
    await db().insert(organizations).values({ id: organizationId, name: 'New card' });
    const payment = `cs_${randomUUID()}`;
    await db()
      .insert(checkoutSessions)
      .values({ id: payment, organizationId, provider: 'sandbox', creditNanos: 5_000_000_000n, expiresAt: new Date(Date.now() + 60_000) });
    expect(await saveCard(db(), { organizationId, checkoutSessionId: payment, paymentMethodId: 'pm_x', brand: 'visa', last4: '4242', now })).toBe(false);
    const setup = `cs_${randomUUID()}`;
    await db()
      .insert(checkoutSessions)
      .values({ id: setup, organizationId, provider: 'sandbox', mode: 'setup', creditNanos: 0n, expiresAt: new Date(Date.now() + 60_000) });
    expect(await saveCard(db(), { organizationId, checkoutSessionId: setup, paymentMethodId: 'pm_x', brand: 'visa', last4: '4242', now })).toBe(true);
    expect(await settingsOf(organizationId)).toMatchObject({
      enabled: false,
      thresholdNanos: 5_000_000_000n,
      topUpNanos: 20_000_000_000n,
      monthlyCapNanos: 100_000_000_000n,
      provider: 'sandbox',
      disabledReason: null,
    });
  });
});
