import { randomUUID } from 'node:crypto';
import type { CreditHistoryEntry } from '@meterway/contracts';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { autoTopUpCharges, creditEntries } from '../../db/schema/index.js';
import { markChargeSucceeded } from '../../domain/auto-top-up/charges.js';
import { grantCredit } from '../../domain/credit/grant-credit.js';
import { postEntry } from '../../domain/credit/ledger.js';
import { settleSandbox } from '../../domain/payments/sandbox-checkout.js';
import { reverseSandboxPayment, type SandboxReversal } from '../../domain/payments/sandbox-reversals.js';
import { setupTestApp, type TestMember } from '../../testing/setup-test-app.js';

const t = setupTestApp({}, { identity: true });

type User = TestMember;
type Page = { items: CreditHistoryEntry[]; pagination: { nextPageToken: string | null; previousPageToken: string | null } };

const history = (user: User, query: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: '/bff/credit-history', query, headers: { cookie: user.cookie } });
const exportOf = (user: User, query: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: '/bff/credit-history/export', query, headers: { cookie: user.cookie } });

async function page(user: User, query: Record<string, string> = {}): Promise<Page> {
  const response = await history(user, query);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** A signed-up person, provisioned, owning their own organisation. */
const signUp = () => t.signUpMember();

/** A sandbox top-up paid with the test card and applied, as the settler applies it. */
async function topUp(user: User, amount: number): Promise<string> {
  const checkout = (await t.app.inject({ method: 'POST', url: '/bff/stripe/checkout-session', payload: { amount }, headers: { cookie: user.cookie } })).json();
  const paid = await t.app.inject({
    method: 'POST',
    url: `/sandbox/checkout-sessions/${checkout.checkoutSessionId}/confirm`,
    payload: { clientSecret: checkout.clientSecret, cardNumber: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' },
  });
  expect(paid.statusCode).toBe(202);
  await settleSandbox(t.testDb.db, new Date());
  return checkout.checkoutSessionId;
}

/** A $20 auto top-up charge that succeeded, as the worker (sandbox) or the webhook (Stripe, with its receipt) marks it. */
async function autoTopUp(user: User, paid: { provider: 'sandbox' | 'stripe'; receiptUrl?: string }): Promise<string> {
  const chargeId = randomUUID();
  await t.testDb.db
    .insert(autoTopUpCharges)
    .values({ id: chargeId, organizationId: user.organizationId, provider: paid.provider, amountNanos: 20_000_000_000n, status: 'processing' });
  await markChargeSucceeded(t.testDb.db, {
    organizationId: user.organizationId,
    chargeId,
    now: new Date(),
    ...(paid.receiptUrl ? { receiptUrl: paid.receiptUrl } : {}),
  });
  return chargeId;
}

/** A settled chat completion's charge, as the settlement function posts it. */
const charge = (user: User, dollars: number) =>
  t.testDb.db.transaction((tx) =>
    postEntry(tx, { organizationId: user.organizationId, kind: 'usage_charge', amountNanos: BigInt(-dollars * 1e9), reference: randomUUID() }),
  );

/** The sandbox portal's refund, dispute, win or lose of a paid top-up. */
const reverse = (user: User, checkoutSessionId: string, reversal: SandboxReversal) =>
  reverseSandboxPayment(t.testDb.db, { organizationId: user.organizationId, payment: { kind: 'top_up', checkoutSessionId }, now: new Date(), ...reversal });

let owner: User;
let other: User;
beforeAll(async () => {
  owner = await signUp();
  other = await signUp();
}, 60_000);

describe('GET /bff/credit-history', () => {
  it('lists top-ups with their receipt, grants, refunds and disputes, newest first, and no usage charges', async () => {
    const checkoutSessionId = await topUp(owner, 5);
    await grantCredit(t.testDb.db, { email: owner.email, dollars: 2.5, reason: 'launch promotion' });
    await charge(owner, 0.5);
    await reverse(owner, checkoutSessionId, { action: 'refund', amount: 1 });
    await reverse(owner, checkoutSessionId, { action: 'dispute' });
    await reverse(owner, checkoutSessionId, { action: 'win' });

    const { items, pagination } = await page(owner);
    expect(pagination).toEqual({ nextPageToken: null, previousPageToken: null });
    expect(items.map((item) => [item.kind, item.amount, item.balanceAfter])).toEqual([
      ['dispute', 4, 6],
      ['dispute', -4, 2],
      ['refund', -1, 6],
      ['adjustment', 2.5, 7.5],
      ['top_up', 5, 5],
    ]);
    const [won, disputed, refunded, granted, toppedUp] = items;
    expect(toppedUp).toEqual({
      id: expect.any(String),
      createdAt: expect.any(String),
      kind: 'top_up',
      amount: 5,
      balanceAfter: 5,
      note: null,
      expiresAt: null,
      receiptUrl: expect.stringMatching(new RegExp(`/sandbox/portal/receipts/${checkoutSessionId}\\?token=[\\w.-]+$`)),
    });
    expect(granted).toMatchObject({ note: 'launch promotion', receiptUrl: null, expiresAt: null });
    expect(refunded!.note).toBe(`refund of top-up ${checkoutSessionId}`);
    expect(disputed!.note).toBe(`dispute of top-up ${checkoutSessionId}`);
    expect(won!.note).toBe(`dispute of top-up ${checkoutSessionId} won: $4 given back`);

    // The receipt link opens the sandbox's receipt of that top-up.
    const receipt = await t.app.inject({ method: 'GET', url: new URL(toppedUp!.receiptUrl!).pathname + new URL(toppedUp!.receiptUrl!).search });
    expect(receipt.statusCode).toBe(200);
    expect(receipt.body).toContain(checkoutSessionId);
    expect(receipt.body).toContain('$5.00');

    // Oldest first with asc.
    expect((await page(owner, { asc: 'true' })).items.map((item) => item.id)).toEqual(items.map((item) => item.id).reverse());
  });

  it('links an auto top-up’s receipt: the sandbox’s receipt page, or the receipt Stripe gave when it was paid', async () => {
    const user = await signUp();
    const sandboxCharge = await autoTopUp(user, { provider: 'sandbox' });
    const stripeReceipt = 'https://pay.stripe.com/receipts/payment/CAcaFwoVYWNjdF8xTWV0ZXJ3YXk?s=ap';
    await autoTopUp(user, { provider: 'stripe', receiptUrl: stripeReceipt });
    const { items } = await page(user);
    expect(items.map((item) => [item.kind, item.amount, item.balanceAfter])).toEqual([
      ['auto_top_up', 20, 40],
      ['auto_top_up', 20, 20],
    ]);
    expect(items[0]!.receiptUrl).toBe(stripeReceipt);
    const receiptUrl = new URL(items[1]!.receiptUrl!);
    expect(receiptUrl.pathname).toBe(`/sandbox/portal/auto-top-up-receipts/${sandboxCharge}`);
    const receipt = await t.app.inject({ method: 'GET', url: receiptUrl.pathname + receiptUrl.search });
    expect(receipt.statusCode, receipt.body).toBe(200);
    expect(receipt.body).toContain(sandboxCharge);
    expect(receipt.body).toContain('$20.00');
    // The export carries the same links.
    expect((await exportOf(user)).body).toContain(stripeReceipt);
  });

  it('folds a debt payment into the line whose credit paid it; a take-back beyond the balance says what is owed', async () => {
    const user = await signUp();
    const first = await topUp(user, 5);
    await charge(user, 4);
    await reverse(user, first, { action: 'refund' });
    await topUp(user, 10);

    const { items } = await page(user);
    expect(items.map((item) => [item.kind, item.amount, item.balanceAfter, item.note])).toEqual([
      ['top_up', 10, 6, '$4 of it paid what was owed'],
      ['refund', -1, 0, `refund of top-up ${first}; $4 more could not be taken from the balance and is owed`],
      ['top_up', 5, 5, null],
    ]);
    // The ledger has the payment as its own entry; the history shows none.
    const kinds = (await t.testDb.db.select({ kind: creditEntries.kind }).from(creditEntries).where(eq(creditEntries.organizationId, user.organizationId))).map(
      (row) => row.kind,
    );
    expect(kinds).toEqual(expect.arrayContaining(['owed_payment', 'usage_charge']));
  });

  it('pages by nextPageToken and back by previousPageToken, newest first and oldest first', async () => {
    const busy = await signUp();
    const base = Date.parse('2026-05-01T10:00:00.000Z');
    const inserted = Array.from({ length: 12 }, (_, i) => ({
      id: randomUUID(),
      organizationId: busy.organizationId,
      kind: i % 4 === 3 ? ('usage_charge' as const) : ('adjustment' as const),
      amountNanos: 1_000_000_000n,
      balanceAfterNanos: BigInt(i + 1) * 1_000_000_000n,
      reason: `row ${i}`,
      // Two to a millisecond: the id breaks the tie.
      createdAt: new Date(base + Math.floor(i / 2)),
    }));
    await t.testDb.db.insert(creditEntries).values(inserted);
    const listed = inserted.filter((row) => row.kind !== 'usage_charge');
    const byKeyset = (x: (typeof inserted)[number], y: (typeof inserted)[number]) =>
      x.createdAt.getTime() - y.createdAt.getTime() || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
    const oldestFirst = [...listed].sort(byKeyset).map((row) => row.id);

    for (const asc of [false, true]) {
      const seen: string[] = [];
      const pages: Page[] = [];
      let query: Record<string, string> = { limit: '4', asc: String(asc) };
      for (;;) {
        const current = await page(busy, query);
        pages.push(current);
        seen.push(...current.items.map((item) => item.id));
        if (!current.pagination.nextPageToken) break;
        query = { limit: '4', asc: String(asc), nextPageToken: current.pagination.nextPageToken };
      }
      expect(seen).toEqual(asc ? oldestFirst : [...oldestFirst].reverse());
      expect(pages.map((p) => p.items.length)).toEqual([4, 4, 1]);
      expect(pages[0]!.pagination.previousPageToken).toBeNull();
      const back = await page(busy, { limit: '4', asc: String(asc), previousPageToken: pages[2]!.pagination.previousPageToken! });
      expect(back.items).toEqual(pages[1]!.items);
    }

    // A token is for this list, order and organisation only.
    const token = (await page(busy, { limit: '4' })).pagination.nextPageToken!;
    expect((await history(busy, { limit: '4', asc: 'true', nextPageToken: token })).statusCode).toBe(400);
    expect((await history(other, { limit: '4', nextPageToken: token })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/bff/audit-log', query: { nextPageToken: token }, headers: { cookie: busy.cookie } })).statusCode).toBe(
      400,
    );
  });

  it('shows another organisation nothing', async () => {
    expect(await page(other)).toEqual({ items: [], pagination: { nextPageToken: null, previousPageToken: null } });
    const csv = await exportOf(other);
    expect(csv.headers['x-total-count']).toBe('0');
  });

  it('is for owners, admins and billing: a developer is refused with 403', async () => {
    const member = await signUp();
    for (const role of ['admin', 'billing', 'developer'] as const) {
      await t.setRole(member, role);
      const expected = role === 'developer' ? 403 : 200;
      expect((await history(member)).statusCode, role).toBe(expected);
      expect((await exportOf(member)).statusCode, role).toBe(expected);
    }
  });
});

describe('GET /bff/credit-history/export', () => {
  const header = 'ID,Created at,Kind,Amount (USD),Balance after (USD),Note,Expires at,Receipt URL\r\n';

  it('sends the history as CSV in the list order, the amounts exact and signed, the receipt link included', async () => {
    const user = await signUp();
    const checkoutSessionId = await topUp(user, 5);
    await grantCredit(t.testDb.db, { email: user.email, dollars: -1.25, reason: '=HYPERLINK("https://evil.example"), "x"' });
    await charge(user, 0.75);

    const response = await exportOf(user);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="credit-history-${new Date().toISOString().slice(0, 10)}.csv"`);
    expect(response.headers['x-total-count']).toBe('2');
    const { items } = await page(user);
    const [adjusted, toppedUp] = items;
    // The receipt link's portal token is signed afresh with its expiry each time.
    const unsigned = (text: string) => text.replaceAll(/token=[\w.-]+/g, 'token=…');
    expect(unsigned(response.body)).toBe(
      header +
        `${adjusted!.id},${adjusted!.createdAt},adjustment,-1.25,3.75,"'=HYPERLINK(""https://evil.example""), ""x""",,\r\n` +
        `${toppedUp!.id},${toppedUp!.createdAt},top_up,5,5,,,${unsigned(toppedUp!.receiptUrl!)}\r\n`,
    );
    expect(toppedUp!.receiptUrl).toContain(checkoutSessionId);

    const oldestFirst = await exportOf(user, { asc: 'true' });
    expect(
      oldestFirst.body
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',')[0]),
    ).toEqual([toppedUp!.id, adjusted!.id]);
  });
});
