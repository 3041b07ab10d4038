import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { autoTopUpCharges, autoTopUps, checkoutSessions } from '../../db/schema/index.js';
import { markChargeFailed, markChargeSucceeded } from '../../domain/auto-top-up/charges.js';
import { pastExpiryMessage } from '../../domain/payments/sandbox-cards.js';
import { settleSandbox } from '../../domain/payments/sandbox-checkout.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { setupTestApp } from '../../testing/setup-test-app.js';

const t = setupTestApp({ SANDBOX_TAX_RATE: '0.1' }, { identity: true });
afterEach(async () => expectLedgerConsistent(t.testDb.db));

type Json = Record<string, any>;
const bff = (cookie: string, method: 'GET' | 'POST', url: string, payload?: Json, remoteAddress = '127.0.0.1') =>
  t.app.inject({ method, url, headers: { cookie }, remoteAddress, ...(payload !== undefined ? { payload } : {}) });

/** `remoteAddress` keeps a test that makes many changes clear of the others' rate limit. */
async function topUp(cookie: string, amount: number, cardNumber: string, remoteAddress = '127.0.0.1') {
  const started = await bff(cookie, 'POST', '/bff/stripe/checkout-session', { amount }, remoteAddress);
  expect(started.statusCode).toBe(200);
  const { checkoutSessionId, clientSecret } = started.json();
  const confirmed = await t.app.inject({
    method: 'POST',
    url: `/sandbox/checkout-sessions/${checkoutSessionId}/confirm`,
    remoteAddress,
    payload: { clientSecret, cardNumber, expiry: '12 / 34', cvc: '123' },
  });
  return { checkoutSessionId, clientSecret, confirmed };
}

async function statusOf(cookie: string, checkoutSessionId: string, until: string[] = ['SUCCEEDED', 'FAILED', 'EXPIRED']) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const me = (await bff(cookie, 'GET', '/bff/me')).json();
    const session = me.organizationCheckoutSessions.find((candidate: Json) => candidate.checkoutSessionId === checkoutSessionId);
    if (session && until.includes(session.status)) return { status: session.status as string, balance: me.remainingSpendAmount as number };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`checkout ${checkoutSessionId} did not settle`);
}

describe('sandbox payments', () => {
  it('tops up $25 with the success card: IN_PROGRESS first, then SUCCEEDED and $25 of credit', async () => {
    const { cookie } = await t.users.signUp();
    const started = await bff(cookie, 'POST', '/bff/stripe/checkout-session', { amount: 25 });
    const { checkoutSessionId, clientSecret } = started.json();
    expect(checkoutSessionId).toMatch(/^cs_sandbox_/);
    expect((await bff(cookie, 'GET', '/bff/me')).json().organizationCheckoutSessions).toEqual([{ checkoutSessionId, status: 'IN_PROGRESS' }]);

    const summary = await t.app.inject({ method: 'GET', url: `/sandbox/checkout-sessions/${checkoutSessionId}?client_secret=${clientSecret}` });
    expect(summary.json()).toMatchObject({ status: 'IN_PROGRESS', credit: 25, tax: 2.5, total: 27.5, currency: 'usd', testMode: true });

    const confirmed = await t.app.inject({
      method: 'POST',
      url: `/sandbox/checkout-sessions/${checkoutSessionId}/confirm`,
      payload: { clientSecret, cardNumber: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' },
    });
    expect(confirmed.statusCode).toBe(202);
    expect(await statusOf(cookie, checkoutSessionId)).toEqual({ status: 'SUCCEEDED', balance: 25 });
  });

  it('never shows a top-up SUCCEEDED without its credit, however the reads fall against the settlements', async () => {
    const { cookie } = await t.users.signUp();
    const ids: string[] = [];
    for (let index = 0; index < 12; index++) {
      const { checkoutSessionId, confirmed } = await topUp(cookie, 1, '4242424242424242', '192.0.2.12');
      expect(confirmed.statusCode).toBe(202);
      ids.push(checkoutSessionId);
    }
    const shown: Array<{ succeeded: number; balance: number }> = [];
    const readUntilAllSettled = async () => {
      for (let read = 0; read < 2000; read++) {
        const me = (await bff(cookie, 'GET', '/bff/me')).json();
        const succeeded = me.organizationCheckoutSessions.filter((session: Json) => session.status === 'SUCCEEDED').length;
        shown.push({ succeeded, balance: me.remainingSpendAmount });
        if (succeeded === ids.length) return;
      }
    };
    await Promise.all(Array.from({ length: 8 }, readUntilAllSettled));
    expect(shown.at(-1)).toEqual({ succeeded: 12, balance: 12 });
    expect(shown.filter(({ succeeded, balance }) => balance < succeeded)).toEqual([]);
  });

  it.each([
    ['the decline card', '4000 0000 0000 0002', 'generic_decline', 'Your card was declined.'],
    ['the insufficient-funds card', '4000000000009995', 'insufficient_funds', 'Your card has insufficient funds.'],
  ])('refuses %s with a 402 card error and leaves the session open, with nothing to settle', async (_case, card, declineCode, message) => {
    const { cookie } = await t.users.signUp();
    const { checkoutSessionId, confirmed } = await topUp(cookie, 10, card);
    expect(confirmed.statusCode).toBe(402);
    expect(confirmed.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(confirmed.json()).toMatchObject({ status: 402, code: 'PaymentRequired', declineCode, detail: message, errors: [{ field: 'cardNumber', message }] });

    await settleSandbox(t.testDb.db, new Date());
    const [stored] = await t.testDb.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, checkoutSessionId));
    expect(stored).toMatchObject({ status: 'IN_PROGRESS', pendingOutcome: null });
    const me = (await bff(cookie, 'GET', '/bff/me')).json();
    expect(me).toMatchObject({ organizationCheckoutSessions: [{ checkoutSessionId, status: 'IN_PROGRESS' }], remainingSpendAmount: 0 });
  });

  it('takes a corrected card in the same session: declined, then a past expiry, then paid', async () => {
    const { cookie } = await t.users.signUp();
    const { checkoutSessionId, clientSecret } = (await bff(cookie, 'POST', '/bff/stripe/checkout-session', { amount: 10 })).json();
    const confirm = (cardNumber: string, expiry: string) =>
      t.app.inject({
        method: 'POST',
        url: `/sandbox/checkout-sessions/${checkoutSessionId}/confirm`,
        payload: { clientSecret, cardNumber, expiry, cvc: '123' },
      });

    expect((await confirm('4000 0000 0000 0002', '12/34')).statusCode).toBe(402);
    const expired = await confirm('4242 4242 4242 4242', '01/20');
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toMatchObject({
      detail: "Your card's expiration year is in the past.",
      errors: [{ field: 'expiry', message: "Your card's expiration year is in the past." }],
    });
    expect((await confirm('4242 4242 4242 4242', '12/34')).statusCode).toBe(202);
    await settleSandbox(t.testDb.db, new Date());
    expect(await statusOf(cookie, checkoutSessionId)).toEqual({ status: 'SUCCEEDED', balance: 10 });
  });

  it.each([
    ['12/25', "Your card's expiration year is in the past."],
    ['02/26', "Your card's expiration date is in the past."],
    ['03/26', undefined],
    ['04 / 26', undefined],
    ['01/27', undefined],
  ])('reads the expiry %s on 31 March 2026 as %s', (expiry, message) => {
    expect(pastExpiryMessage(expiry, new Date('2026-03-31T23:59:59Z'))).toBe(message);
  });

  it('refuses a real card, a mistyped number, a wrong secret and a second confirm', async () => {
    const { cookie } = await t.users.signUp();
    const started = (await bff(cookie, 'POST', '/bff/stripe/checkout-session', { amount: 5 })).json();
    const confirm = (payload: Json) => t.app.inject({ method: 'POST', url: `/sandbox/checkout-sessions/${started.checkoutSessionId}/confirm`, payload });
    const card = { clientSecret: started.clientSecret, expiry: '12/34', cvc: '123' };
    const real = await confirm({ ...card, cardNumber: '4111 1111 1111 1111' });
    expect(real.statusCode).toBe(400);
    expect(real.json().detail).toMatch(/Use a test card such as 4242 4242 4242 4242/);
    expect((await confirm({ ...card, cardNumber: '4242 4242 4242 4241' })).json().errors).toEqual([
      { field: 'cardNumber', message: 'Your card number is incorrect.' },
    ]);
    expect((await confirm({ ...card, clientSecret: 'cs_sandbox_wrong', cardNumber: '4242424242424242' })).statusCode).toBe(404);
    expect((await confirm({ ...card, cardNumber: '4242424242424242' })).statusCode).toBe(202);
    expect((await confirm({ ...card, cardNumber: '4242424242424242' })).statusCode).toBe(409);
    expect(await statusOf(cookie, started.checkoutSessionId)).toEqual({ status: 'SUCCEEDED', balance: 5 });
  });

  it.each([
    ['0', { amount: 0 }, 'amount', 'Minimum is 1'],
    ['101', { amount: 101 }, 'amount', 'Maximum is 100'],
    ['"abc"', { amount: 'abc' }, 'amount', 'This field is required'],
    ['1.001', { amount: 1.001 }, 'amount', 'At most 2 decimals'],
    ['a missing amount', {}, 'amount', 'This field is required'],
  ])('refuses an amount of %s with a 400 naming the field', async (_case, payload, field, message) => {
    const { cookie } = await t.users.signUp();
    const response = await bff(cookie, 'POST', '/bff/stripe/checkout-session', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toContainEqual({ field, message });
    expect((await bff(cookie, 'GET', '/bff/me')).json().organizationCheckoutSessions).toEqual([]);
  });

  it('refuses a missing body with a 400', async () => {
    const { cookie } = await t.users.signUp();
    const response = await t.app.inject({
      method: 'POST',
      url: '/bff/stripe/checkout-session',
      headers: { cookie, 'content-type': 'application/json' },
      payload: '',
    });
    expect(response.statusCode).toBe(400);
  });

  it('expires an open session once its time is up', async () => {
    const { cookie } = await t.users.signUp();
    const { checkoutSessionId } = (await bff(cookie, 'POST', '/bff/stripe/checkout-session', { amount: 3 })).json();
    await t.testDb.db
      .update(checkoutSessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(checkoutSessions.id, checkoutSessionId));
    await settleSandbox(t.testDb.db, new Date());
    expect(await statusOf(cookie, checkoutSessionId)).toEqual({ status: 'EXPIRED', balance: 0 });
  });

  it('opens Invoices: a signed link to a page listing every top-up with a printable receipt', async () => {
    const { cookie } = await t.users.signUp();
    const { checkoutSessionId } = await topUp(cookie, 12.5, '4242424242424242');
    await statusOf(cookie, checkoutSessionId);
    const portal = await bff(cookie, 'POST', '/bff/stripe/customer-portal-session');
    expect(portal.statusCode).toBe(200);
    const url = new URL(portal.json().url);
    const path = `${url.pathname}${url.search}`;
    const page = await t.app.inject({ method: 'GET', url: path });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('Test mode: no real money');
    expect(page.body).toContain('$12.50');
    expect(page.body).toContain('$1.25');
    expect(page.body).toContain('$13.75');
    const receipt = await t.app.inject({ method: 'GET', url: `/sandbox/portal/receipts/${checkoutSessionId}${url.search}` });
    expect(receipt.statusCode).toBe(200);
    expect(receipt.body).toContain(checkoutSessionId);
    expect((await t.app.inject({ method: 'GET', url: `${path.slice(0, -2)}xx` })).statusCode).toBe(404);
  });

  it('shows a paid auto top-up’s receipt behind the portal link: amount, card, date, test mode; none for a failed one', async () => {
    const { cookie } = await t.users.signUp();
    const { organizationId } = (await bff(cookie, 'GET', '/bff/me')).json();
    await t.testDb.db.insert(autoTopUps).values({
      organizationId,
      thresholdNanos: 5_000_000_000n,
      topUpNanos: 20_000_000_000n,
      monthlyCapNanos: 100_000_000_000n,
      provider: 'sandbox',
      cardBrand: 'visa',
      cardLast4: '4242',
    });
    const charged = (status: 'succeeded' | 'failed') => {
      const id = randomUUID();
      return t.testDb.db
        .insert(autoTopUpCharges)
        .values({ id, organizationId, provider: 'sandbox', amountNanos: 20_000_000_000n, status: 'processing' })
        .then(() =>
          status === 'succeeded'
            ? markChargeSucceeded(t.testDb.db, { organizationId, chargeId: id, now: new Date('2026-11-02T09:30:00Z') })
            : markChargeFailed(t.testDb.db, { organizationId, chargeId: id, message: 'Your card was declined.', now: new Date() }),
        )
        .then(() => id);
    };
    const paid = await charged('succeeded');
    const { search } = new URL((await bff(cookie, 'POST', '/bff/stripe/customer-portal-session')).json().url);
    const receipt = await t.app.inject({ method: 'GET', url: `/sandbox/portal/auto-top-up-receipts/${paid}${search}` });
    expect(receipt.statusCode, receipt.body).toBe(200);
    expect(receipt.headers['content-type']).toMatch(/^text\/html/);
    for (const text of ['Test mode', 'Auto top-up paid 2026-11-02 09:30 UTC', 'Card Visa ending 4242', '$20.00', paid]) expect(receipt.body).toContain(text);

    const failed = await charged('failed');
    expect((await t.app.inject({ method: 'GET', url: `/sandbox/portal/auto-top-up-receipts/${failed}${search}` })).statusCode).toBe(404);
    // Another organisation's portal link opens none of them.
    const stranger = await t.users.signUp();
    const { search: theirs } = new URL((await bff(stranger.cookie, 'POST', '/bff/stripe/customer-portal-session')).json().url);
    expect((await t.app.inject({ method: 'GET', url: `/sandbox/portal/auto-top-up-receipts/${paid}${theirs}` })).statusCode).toBe(404);
  });

  it('gives the credit history links that open their receipt only: not Invoices, not its buttons, not another receipt', async () => {
    const { cookie } = await t.users.signUp();
    const first = await topUp(cookie, 11, '4242424242424242', '192.0.2.41');
    await statusOf(cookie, first.checkoutSessionId);
    const second = await topUp(cookie, 12, '4242424242424242', '192.0.2.41');
    await statusOf(cookie, second.checkoutSessionId);
    const history = (await bff(cookie, 'GET', '/bff/credit-history', undefined, '192.0.2.41')).json();
    const link = new URL(history.items.find((item: Json) => item.amount === 11).receiptUrl);
    const token = link.searchParams.get('token') ?? '';

    const receipt = await t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(receipt.statusCode).toBe(200);
    expect(receipt.body).toContain(first.checkoutSessionId);
    expect(receipt.body).not.toContain('All invoices');
    expect((await t.app.inject({ method: 'GET', url: `/sandbox/portal?token=${token}` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/sandbox/portal/receipts/${second.checkoutSessionId}?token=${token}` })).statusCode).toBe(404);
    const reversal = await t.app.inject({
      method: 'POST',
      url: `/sandbox/portal/top-ups/${first.checkoutSessionId}/reversals?token=${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'action=refund',
    });
    expect(reversal.statusCode).toBe(404);
    expect((await bff(cookie, 'GET', '/bff/me', undefined, '192.0.2.41')).json().remainingSpendAmount).toBe(23);
  });

  it('tells the console which provider is active, without a session', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/bff/config' });
    expect(response.json()).toEqual({ paymentProvider: 'sandbox' });
  });
});

describe('sandbox refunds and disputes, from the Invoices page', () => {
  /** A paid $10 top-up ($1 tax, $11 charged) and the organisation's Invoices link. */
  async function paidWithInvoices(remoteAddress: string) {
    const { cookie, email } = await t.users.signUp();
    const { checkoutSessionId } = await topUp(cookie, 10, '4242424242424242', remoteAddress);
    await statusOf(cookie, checkoutSessionId);
    const portal = new URL((await bff(cookie, 'POST', '/bff/stripe/customer-portal-session', undefined, remoteAddress)).json().url);
    const page = async () => (await t.app.inject({ method: 'GET', url: `${portal.pathname}${portal.search}` })).body;
    /** Presses a button of the page: its form, posted as a browser posts it. */
    const press = (action: string, amount = '', id = checkoutSessionId) =>
      t.app.inject({
        method: 'POST',
        url: `/sandbox/portal/top-ups/${id}/reversals${portal.search}`,
        remoteAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ action, amount }).toString(),
      });
    const credit = async () => {
      const me = (await bff(cookie, 'GET', '/bff/me', undefined, remoteAddress)).json();
      return { balance: me.remainingSpendAmount, owed: me.owedAmount };
    };
    return { cookie, email, checkoutSessionId, page, press, credit, portalUrl: portal.href };
  }

  it('refunds part of a payment, then the rest; each takes back the credit share of what was refunded', async () => {
    const topUp = await paidWithInvoices('192.0.2.31');
    expect(await topUp.page()).toMatch(/<button type="submit">Refund<\/button>.*<button type="submit">Dispute<\/button>/s);

    const partly = await topUp.press('refund', '5.50');
    expect(partly.statusCode).toBe(303);
    expect(partly.headers.location).toBe(topUp.portalUrl);
    expect(await topUp.credit()).toEqual({ balance: 5, owed: 0 });
    expect(await topUp.page()).toContain('Refunded $5.50');

    expect((await topUp.press('refund')).statusCode).toBe(303);
    expect(await topUp.credit()).toEqual({ balance: 0, owed: 0 });
    const page = await topUp.page();
    expect(page).toContain('<td>Refunded</td>');
    expect(page).not.toContain('>Refund</button>');
    expect((await topUp.press('refund')).statusCode).toBe(409);
    // The audit log names who pressed the buttons: the person who opened Invoices, not "system".
    const audit = (await bff(topUp.cookie, 'GET', '/bff/audit-log?action=credit.refunded', undefined, '192.0.2.31')).json().items;
    expect(audit.map((entry: Json) => entry.actorEmail)).toEqual([topUp.email, topUp.email]);
  });

  it('disputes a payment, and gives the credit back when the dispute is won', async () => {
    const topUp = await paidWithInvoices('192.0.2.32');
    expect((await topUp.press('dispute')).statusCode).toBe(303);
    expect(await topUp.credit()).toEqual({ balance: 0, owed: 0 });
    const page = await topUp.page();
    expect(page).toContain('<td>Disputed</td>');
    expect(page).toMatch(/>Win<\/button>.*>Lose<\/button>/s);
    expect((await topUp.press('dispute')).statusCode).toBe(409);

    expect((await topUp.press('win')).statusCode).toBe(303);
    expect(await topUp.credit()).toEqual({ balance: 10, owed: 0 });
    expect(await topUp.page()).toContain('<td>Dispute won</td>');
    expect((await topUp.press('lose')).statusCode).toBe(409);
  });

  it('lists auto top-up charges beside top-ups, with the same buttons: a refund, a dispute and its win move their credit', async () => {
    const topUp = await paidWithInvoices('192.0.2.35');
    const { organizationId } = (await bff(topUp.cookie, 'GET', '/bff/me', undefined, '192.0.2.35')).json();
    const chargeId = randomUUID();
    await t.testDb.db
      .insert(autoTopUpCharges)
      .values({ id: chargeId, organizationId, provider: 'sandbox', amountNanos: 20_000_000_000n, status: 'processing' });
    await markChargeSucceeded(t.testDb.db, { organizationId, chargeId, now: new Date() });
    expect(await topUp.credit()).toEqual({ balance: 30, owed: 0 });
    expect(await topUp.page()).toMatch(
      /<td>Auto top-up<\/td><td class="num">\$20\.00<\/td><td class="num">\$0\.00<\/td>\s*<td class="num">\$20\.00<\/td><td>Paid<\/td>/,
    );
    expect(await topUp.page()).toContain(`/sandbox/portal/auto-top-ups/${chargeId}/reversals`);

    const press = (action: string, amount = '', id: string = chargeId) =>
      t.app.inject({
        method: 'POST',
        url: `/sandbox/portal/auto-top-ups/${id}/reversals${new URL(topUp.portalUrl).search}`,
        remoteAddress: '192.0.2.35',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ action, amount }).toString(),
      });
    expect((await press('refund', '5')).statusCode).toBe(303);
    expect(await topUp.credit()).toEqual({ balance: 25, owed: 0 });
    expect((await press('dispute')).statusCode).toBe(303);
    expect(await topUp.credit()).toEqual({ balance: 10, owed: 0 });
    expect(await topUp.page()).toContain('<td>Refunded $5.00, Disputed</td>');
    expect((await press('win')).statusCode).toBe(303);
    expect(await topUp.credit()).toEqual({ balance: 25, owed: 0 });
    // The rest refunded, then disputed again and lost: nothing more than the charge's credit is ever taken.
    expect((await press('refund')).statusCode).toBe(303);
    expect((await press('dispute')).statusCode).toBe(409);
    expect(await topUp.credit()).toEqual({ balance: 10, owed: 0 });
    expect((await press('refund', '', randomUUID())).statusCode).toBe(404);
    expect((await press('refund', '', 'not-a-charge')).statusCode).toBe(400);
  });

  it('keeps a lost dispute taken; refuses another organisation’s top-up and a bad form', async () => {
    const topUp = await paidWithInvoices('192.0.2.33');
    await topUp.press('refund', '2.20');
    await topUp.press('dispute');
    await topUp.press('lose');
    expect(await topUp.credit()).toEqual({ balance: 0, owed: 0 });
    expect(await topUp.page()).toContain('<td>Refunded $2.20, Dispute lost</td>');

    const other = await paidWithInvoices('192.0.2.34');
    expect((await other.press('refund', '', topUp.checkoutSessionId)).statusCode).toBe(404);
    expect((await other.press('refund', '12')).statusCode).toBe(400);
    expect((await other.press('refund', '-1')).statusCode).toBe(400);
    expect((await other.press('steal')).statusCode).toBe(400);
    expect(await other.credit()).toEqual({ balance: 10, owed: 0 });
  });
});
