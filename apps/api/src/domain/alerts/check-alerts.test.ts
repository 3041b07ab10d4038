import { randomUUID } from 'node:crypto';
import type { Role } from '@meterway/contracts';
import { setupTestDb } from '@meterway/db/testing';
import { smtpMailer } from '@meterway/service';
import { decodedText, startMailCatcher, subjectOf } from '@meterway/service/mail-catcher';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { alertDeliveries, keySpend, memberships, organizations, persons, publishableKeys } from '../../db/schema/index.js';
import { postEntry } from '../credit/ledger.js';
import { newKeyValue } from '../keys/key-value.js';
import { dollarsToNanos, periodStart } from '../money.js';
import { saveAlertSettings } from './alert-settings.js';
import { checkAlerts } from './check-alerts.js';

const testDb = setupTestDb({ schema, migrations });
let mail: Awaited<ReturnType<typeof startMailCatcher>>;
beforeAll(async () => {
  mail = await startMailCatcher();
});
afterAll(async () => mail?.close());

const consoleUrl = 'https://console.example.com';
const check = (now = new Date()) => checkAlerts({ db: testDb.db, mailer: smtpMailer(mail.url, 'Meterway <alerts@example.com>'), consoleUrl }, now);
const minutes = (n: number) => new Date(Date.now() + n * 60_000);

async function organization() {
  const organizationId = randomUUID();
  const email = `alerts-${randomUUID()}@example.com`;
  await testDb.db.insert(organizations).values({ id: organizationId, name: 'Acme Labs' });
  await member(organizationId, email, 'owner');
  return { organizationId, email, viewer: { organizationId, personId: null, email: 'system' } };
}

async function member(organizationId: string, email: string, role: Role) {
  const personId = randomUUID();
  await testDb.db.insert(persons).values({ id: personId, identityId: randomUUID(), email, organizationId });
  await testDb.db.insert(memberships).values({ organizationId, personId, role });
}

const post = (organizationId: string, kind: 'top_up' | 'usage_charge', dollars: number) =>
  testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind, amountNanos: dollarsToNanos(dollars), reference: randomUUID() }));

async function key(organizationId: string, budgetDollars: number) {
  const id = randomUUID();
  await testDb.db
    .insert(publishableKeys)
    .values({ id, organizationId, name: 'Production', value: newKeyValue(), spendLimitNanos: dollarsToNanos(budgetDollars), allowedOrigins: [] });
  return id;
}

/** What the gateway leaves behind when a key spends: its month's total. */
const spent = (organizationId: string, keyId: string, dollars: number, now = new Date()) =>
  testDb.db
    .insert(keySpend)
    .values({ organizationId, publishableKeyId: keyId, periodStart: periodStart(now), spentNanos: dollarsToNanos(dollars) })
    .onConflictDoUpdate({
      target: [keySpend.organizationId, keySpend.publishableKeyId, keySpend.periodStart],
      set: { spentNanos: dollarsToNanos(dollars) },
    });

const subjects = (email: string) => mail.mailsTo(email).map(subjectOf);

describe('low balance alerts', () => {
  it('mails once when the balance falls below $5, again only after a top-up and a new fall', async () => {
    const { organizationId, email } = await organization();
    await post(organizationId, 'top_up', 20);
    await post(organizationId, 'usage_charge', -14);
    await check();
    expect(mail.mailsTo(email)).toHaveLength(0);

    await post(organizationId, 'usage_charge', -2.5);
    await check();
    const first = await mail.waitForMail(email);
    const text = decodedText(first);
    expect(subjectOf(first)).toBe('Your Meterway balance is below $5.00');
    expect(text).toContain('fell below $5.00: it is now $3.50');
    expect(text).toContain(`${consoleUrl}/add-credits`);

    await post(organizationId, 'usage_charge', -1);
    await check();
    await check();
    expect(mail.mailsTo(email)).toHaveLength(1);

    await post(organizationId, 'top_up', 10);
    await check();
    expect(mail.mailsTo(email)).toHaveLength(1);
    await post(organizationId, 'usage_charge', -9);
    await check();
    expect(decodedText(await mail.waitForMail(email, 2))).toContain('it is now $3.50');
  });

  it('mails the members who look after the credit (owner, admin, billing), not the developers', async () => {
    const { organizationId, email: owner } = await organization();
    const [admin, developer, billing] = ['admin', 'developer', 'billing'].map((role) => `alerts-${role}-${randomUUID()}@example.com`) as [
      string,
      string,
      string,
    ];
    await member(organizationId, admin, 'admin');
    await member(organizationId, developer, 'developer');
    await member(organizationId, billing, 'billing');
    await post(organizationId, 'top_up', 10);
    await post(organizationId, 'usage_charge', -6);
    await check();
    const sent = await mail.waitForMail(owner);
    expect(sent.to.sort()).toEqual([owner, admin, billing].sort());
    expect(mail.mailsTo(developer)).toHaveLength(0);
  });

  it('never mails an organisation that never had credit above the threshold', async () => {
    const never = await organization();
    const small = await organization();
    await post(small.organizationId, 'top_up', 3);
    await post(small.organizationId, 'usage_charge', -2);
    await check();
    expect(mail.mailsTo(never.email)).toHaveLength(0);
    expect(mail.mailsTo(small.email)).toHaveLength(0);
  });

  it('follows edited thresholds, and none when turned off', async () => {
    const raised = await organization();
    const off = await organization();
    await post(raised.organizationId, 'top_up', 30);
    await post(raised.organizationId, 'usage_charge', -15);
    await post(off.organizationId, 'top_up', 30);
    await saveAlertSettings(testDb.db, off.viewer, { lowBalance: 0, keyBudgetPercents: [] }, new Date());
    await post(off.organizationId, 'usage_charge', -29);
    await check();
    expect(mail.mailsTo(raised.email)).toHaveLength(0);

    await saveAlertSettings(testDb.db, raised.viewer, { lowBalance: 20, keyBudgetPercents: [] }, new Date());
    await check();
    expect(subjectOf(await mail.waitForMail(raised.email))).toBe('Your Meterway balance is below $20.00');
    expect(mail.mailsTo(off.email)).toHaveLength(0);
  });
});

describe('key budget alerts', () => {
  it('mails once per percentage of the budget a key reaches, and again next month', async () => {
    const { organizationId, email } = await organization();
    await post(organizationId, 'top_up', 100);
    const keyId = await key(organizationId, 10);
    await spent(organizationId, keyId, 4.99);
    await check();
    expect(mail.mailsTo(email)).toHaveLength(0);

    await spent(organizationId, keyId, 5);
    await check();
    await check();
    expect(subjects(email)).toEqual(['Key "Production" reached 50% of its monthly budget']);
    expect(decodedText(mail.mailsTo(email)[0]!)).toContain(`it spent $5.00 of $10.00 in ${periodStart(new Date()).slice(0, 7)} (UTC)`);

    await spent(organizationId, keyId, 10);
    await check();
    await check();
    expect(subjects(email).sort()).toEqual([
      'Key "Production" reached 50% of its monthly budget',
      'Key "Production" reached 80% of its monthly budget',
      'Key "Production" used its whole monthly budget',
    ]);

    const nextMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 2));
    await spent(organizationId, keyId, 6, nextMonth);
    await check(nextMonth);
    expect(subjects(email).filter((subject) => subject.includes('50%'))).toHaveLength(2);
  });

  it('ignores deleted keys and follows edited percentages', async () => {
    const { organizationId, email, viewer } = await organization();
    await post(organizationId, 'top_up', 100);
    const deleted = await key(organizationId, 10);
    await testDb.db.update(publishableKeys).set({ deletedAt: new Date() }).where(eq(publishableKeys.id, deleted));
    await spent(organizationId, deleted, 10);
    const live = await key(organizationId, 10);
    await saveAlertSettings(testDb.db, viewer, { lowBalance: 5, keyBudgetPercents: [25] }, new Date());
    await spent(organizationId, live, 7);
    await check();
    await check();
    expect(subjects(email)).toEqual(['Key "Production" reached 25% of its monthly budget']);
    const deliveries = await testDb.db.select().from(alertDeliveries).where(eq(alertDeliveries.organizationId, organizationId));
    expect(deliveries.map((row) => [row.publishableKeyId, row.threshold])).toEqual([[live, 25n]]);
  });
});

describe('a failing mail server', () => {
  it('leaves the alert unsent and retries it later, sending it once', async () => {
    const { organizationId, email } = await organization();
    await post(organizationId, 'top_up', 10);
    await post(organizationId, 'usage_charge', -6);
    const down = smtpMailer('smtp://127.0.0.1:1', 'alerts@example.com');
    expect(await checkAlerts({ db: testDb.db, mailer: down, consoleUrl }, new Date())).toEqual({ sent: 0, failed: 1 });
    const [failed] = await testDb.db.select().from(alertDeliveries).where(eq(alertDeliveries.organizationId, organizationId));
    expect(failed).toMatchObject({ sentAt: null, attempts: 1, lastError: expect.stringMatching(/ECONNREFUSED|connect/) });

    await check();
    expect(mail.mailsTo(email)).toHaveLength(0);
    await check(minutes(2));
    await check(minutes(3));
    expect(mail.mailsTo(email)).toHaveLength(1);
    const [sent] = await testDb.db.select().from(alertDeliveries).where(eq(alertDeliveries.organizationId, organizationId));
    expect(sent).toMatchObject({ attempts: 2, lastError: null, sentAt: expect.any(Date) });
  });

  it('gives up after five attempts', async () => {
    const { organizationId } = await organization();
    await post(organizationId, 'top_up', 10);
    await post(organizationId, 'usage_charge', -6);
    const down = { db: testDb.db, mailer: smtpMailer('smtp://127.0.0.1:1', 'alerts@example.com'), consoleUrl };
    for (const after of [0, 2, 6, 31, 121, 600, 6000]) await checkAlerts(down, minutes(after));
    const rows = await testDb.db
      .select()
      .from(alertDeliveries)
      .where(and(eq(alertDeliveries.organizationId, organizationId)));
    expect(rows).toMatchObject([{ sentAt: null, attempts: 5 }]);
  });
});
