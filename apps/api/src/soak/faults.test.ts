import { and, eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletions, checkoutSessions, creditBalances, creditEntries, keySpend, paymentEvents, reservations } from '../db/schema/index.js';
import { rowsOf } from '../domain/metering/sql-values.js';
import { recordCheckout } from '../domain/payments/checkout-sessions.js';
import { callGateway, type ChatRequest, type GatewayOutcome } from './gateway-client.js';
import { checkMoney, checkUsageCharged, openReservations } from './money-invariants.js';
import { postgresUrlFor, report, soakModel, soakOrigin, type SoakStack, startSoakStack, webhookSecret } from './soak-stack.js';

const serverUrl = postgresUrlFor('faults');
/**
 * Holds expire after 10 s here (10 minutes in production), so the api's own sweeper gives a killed
 * instance's holds back within the test, in real time. A slow stream below takes about 4 s.
 */
const reservationTtlMs = 10_000;
const figures = { requests: 0, reservationsSwept: 0, invariantChecks: 0, violations: 0 };

async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.skipIf(!serverUrl)('faults: api processes killed, a hanging upstream (needs DATABASE_URL: real processes on Postgres)', () => {
  let stack: SoakStack;
  beforeAll(async () => {
    // A short upstream timeout, so a hanging provider is given up on within the test.
    stack = await startSoakStack({
      serverUrl: serverUrl!,
      instances: 2,
      stripe: true,
      env: { UPSTREAM_TIMEOUT_MS: '1000', UPSTREAM_IDLE_TIMEOUT_MS: '500', RESERVATION_TTL_MS: String(reservationTtlMs) },
    });
  }, 120_000);
  afterAll(async () => {
    report('faults', figures);
    await stack?.close();
  });

  const call = (instance: number, key: string, request: Omit<ChatRequest, 'model'>) => {
    figures.requests += 1;
    return callGateway(stack.instances[instance]!.url, key, soakOrigin, { model: soakModel, ...request });
  };
  async function expectMoneyConsistent(options: { settled?: boolean } = {}) {
    const result = await checkMoney(stack.db.db, options);
    figures.invariantChecks += result.checks;
    figures.violations += result.violations.length;
    expect(result.violations).toEqual([]);
  }
  const completionsOf = (organizationId: string) => stack.db.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, organizationId));
  const creditOf = async (organizationId: string) =>
    (await stack.db.db.select().from(creditBalances).where(eq(creditBalances.organizationId, organizationId)))[0];

  it('SIGKILL mid-stream: the other instance serves on; once their holds expire, the restarted instance’s sweeper charges the dead one’s forwarded calls what they reserved; nothing is charged twice', async () => {
    const account = await stack.account({ creditDollars: 10, budgetDollars: 10 });
    stack.upstream.setMode('slow');
    const before = stack.upstream.calls.size;
    const streams = Array.from({ length: 8 }, (_, i) => call(i % 2, account.value, { stream: true, max_tokens: 20 }));
    // Every stream is under way (the provider is producing it) when instance 0 dies.
    await until(() => stack.upstream.calls.size - before === 8 && stack.upstream.openCalls() === 8, 'all eight streams are running');
    // And their holds recorded it, which a call still unsettled 50 ms after it was forwarded does
    // (a crash before the record lands is the window documented in decision 008).
    const recorded = async () =>
      (
        await stack.db.db
          .select()
          .from(reservations)
          .where(and(eq(reservations.organizationId, account.organizationId), sql`${reservations.forwarded} is not null`))
      ).length;
    await until(async () => (await recorded()) === 8, 'every stream’s hold records that it was forwarded');
    await stack.instances[0]!.kill();
    const outcomes = await Promise.all(streams);

    const survivors = outcomes.filter((_, i) => i % 2 === 1);
    const cut = outcomes.filter((_, i) => i % 2 === 0);
    expect(survivors.map((outcome) => [outcome.status, outcome.complete])).toEqual(Array(4).fill([200, true]));
    expect(cut.every((outcome) => outcome.complete !== true)).toBe(true);
    // The survivor's calls settle; the dead instance's four reservations stay, holding credit.
    await until(async () => (await completionsOf(account.organizationId)).length === 4, 'the surviving calls are settled');
    const held = await stack.db.db.select({ expiresAt: reservations.expiresAt }).from(reservations);
    expect(held).toHaveLength(4);
    await expectMoneyConsistent();

    // The survivor shuts down cleanly, so the restarted process is the only one left to sweep.
    expect(await stack.instances[1]!.stop()).toBe(0);
    let afterRestart: GatewayOutcome;
    try {
      await stack.instances[0]!.restart();
      stack.upstream.setMode('ok');
      afterRestart = await call(0, account.value, { max_tokens: 8 });
      expect(afterRestart.status).toBe(200);
      await until(async () => (await completionsOf(account.organizationId)).length === 5, 'the call after the restart is settled');

      // Its sweeper leaves the dead instance's holds alone until they expire, then charges them:
      // the provider had those calls and may bill all they could produce.
      const expiry = Math.max(...held.map((row) => row.expiresAt.getTime()));
      await until(async () => (await openReservations(stack.db.db)) === 0, 'the restarted instance’s sweeper settles the expired holds', reservationTtlMs * 3);
      expect(Date.now()).toBeGreaterThanOrEqual(expiry);
      const swept = (await completionsOf(account.organizationId)).filter((row) => row.usageEstimated);
      expect(swept.map((row) => row.outputTokens)).toEqual([20, 20, 20, 20]);
      figures.reservationsSwept += held.length;
      await expectMoneyConsistent({ settled: true });
    } finally {
      // The suites after this one use both instances.
      await stack.instances[1]!.restart();
    }
    const answers = new Map([...survivors, afterRestart].map((outcome) => [outcome.upstreamId!, [outcome.completionId!]]));
    const usage = await checkUsageCharged(stack.db.db, [...stack.upstream.calls.values()].slice(before), answers);
    figures.invariantChecks += usage.checks;
    expect(usage).toEqual({ checks: 6, violations: [] });
    // Every call the provider had is charged once: the survivors' usage, the cut streams' reservations.
    expect(await completionsOf(account.organizationId)).toHaveLength(9);
    const charged = (await completionsOf(account.organizationId)).reduce((sum, row) => sum + (row.totalCostNanos ?? 0n), 0n);
    expect((await creditOf(account.organizationId))?.balanceNanos).toBe(10_000_000_000n - charged);
  }, 90_000);

  it('SIGKILL mid-webhook: the top-up is not half-applied, and Stripe redelivering it credits it exactly once', async () => {
    const account = await stack.account({ creditDollars: 0, budgetDollars: 10 });
    const session = await stack.stripe.stripe.checkout.sessions.create({
      ui_mode: 'elements',
      mode: 'payment',
      line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 2500, product_data: { name: 'Usage credit' } } }],
      return_url: 'https://console.example.com/add-credits',
      // As stripe-provider.ts names the organisation, which the webhook finds the session under.
      metadata: { organizationId: account.organizationId },
      client_reference_id: account.organizationId,
    });
    await recordCheckout(stack.db.db, {
      id: session.id,
      organizationId: account.organizationId,
      provider: 'stripe',
      creditNanos: 25_000_000_000n,
      taxNanos: 0n,
      expiresAt: new Date(session.expires_at * 1000),
    });
    stack.stripe.complete(session.id);
    const payload = JSON.stringify(stack.stripe.event('checkout.session.completed', session.id));
    const deliver = (instance: number) => {
      figures.requests += 1;
      return fetch(`${stack.instances[instance]!.url}/webhooks/stripe`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': stack.stripe.stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret }),
        },
        body: payload,
      });
    };

    // Another transaction holds the checkout's row, so the webhook's transaction stops halfway
    // (its event id already written) and the instance is killed right there.
    const blocker = new pg.Client({ connectionString: stack.db.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('select id from app.checkout_sessions where id = $1 for update', [session.id]);
      const delivery = deliver(0).then(
        (response) => response.status,
        () => 0,
      );
      await until(async () => {
        const waiting = await blocker.query(
          `select count(*)::int as count from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        return waiting.rows[0].count > 0;
      }, 'the webhook waits on the row halfway through its transaction');
      await stack.instances[0]!.kill();
      expect(await delivery).toBe(0);
      await blocker.query('rollback');
    } finally {
      await blocker.end();
    }

    const topUps = () =>
      stack.db.db
        .select()
        .from(creditEntries)
        .where(and(eq(creditEntries.kind, 'top_up'), eq(creditEntries.reference, session.id)));
    const status = async () => (await stack.db.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, session.id)))[0]?.status;
    // Nothing of the killed transaction remains: not the event id, which would turn Stripe's retry into a "duplicate".
    await until(async () => {
      const [waiting] = rowsOf<{ count: number }>(
        await stack.db.db.execute(sql`select count(*)::int as count from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`),
      );
      return waiting?.count === 0;
    }, 'the killed instance’s transaction is gone');
    expect(await stack.db.db.select().from(paymentEvents)).toEqual([]);
    expect(await status()).toBe('IN_PROGRESS');
    expect(await topUps()).toEqual([]);

    // Stripe retries on another instance, then once more on the restarted one.
    expect((await deliver(1)).status).toBe(200);
    await stack.instances[0]!.restart();
    expect((await deliver(0)).status).toBe(200);
    expect(await status()).toBe('SUCCEEDED');
    expect((await topUps()).map((entry) => entry.amountNanos)).toEqual([25_000_000_000n]);
    expect((await creditOf(account.organizationId))?.balanceNanos).toBe(25_000_000_000n);
    await expectMoneyConsistent({ settled: true });
  });

  it('a provider that counts more than was admitted: the excess is charged from free credit and flagged, what the credit cannot pay is recorded', async () => {
    const budgetBound = await stack.account({ creditDollars: 100, budgetDollars: 1 });
    const creditBound = await stack.account({ creditDollars: 1, budgetDollars: 100 });
    stack.upstream.setMode('greedy');
    // No max_tokens: each call is admitted for all its budget or credit can pay, and uses all of it.
    const first = await Promise.all([budgetBound, creditBound].map((account, i) => call(i, account.value, {})));
    expect(first.map((outcome) => outcome.status)).toEqual([200, 200]);
    const second = await Promise.all([budgetBound, creditBound].map((account, i) => call(i, account.value, { max_tokens: 1 })));
    expect(second.map((outcome) => [outcome.status, outcome.code])).toEqual([
      [429, 'budget_exceeded'],
      [402, 'insufficient_quota'],
    ]);
    stack.upstream.setMode('ok');

    const rows = await Promise.all([budgetBound, creditBound].map(async (account) => (await completionsOf(account.organizationId))[0]!));
    for (const row of rows) {
      // The provider's own counts are kept and charged: 5 input tokens more than estimated, at 100 µ$ each.
      expect(row.inputTokens).toBe(row.estimatedInputTokens + 5);
      expect(row.totalCostNanos).toBe(row.inputCostNanos + row.outputCostNanos);
      expect(row.overHoldNanos).toBe(5n * 100_000n);
    }
    const [budgetRow, creditRow] = rows as [(typeof rows)[0], (typeof rows)[0]];
    // The budget-bound key's spend goes past its budget by exactly the over-hold charge, paid from its ample credit.
    const [spend] = await stack.db.db.select().from(keySpend).where(eq(keySpend.publishableKeyId, budgetBound.keyId));
    expect(spend!.spentNanos).toBe(budgetRow.totalCostNanos);
    expect(budgetRow.unpaidNanos).toBe(0n);
    // The credit-bound organisation pays down to zero at most; the rest is recorded as unpaid, never hidden.
    const due = creditRow.totalCostNanos! - 1_000_000_000n;
    expect(creditRow.unpaidNanos).toBe(due > 0n ? due : 0n);
    expect((await creditOf(creditBound.organizationId))?.balanceNanos).toBe(1_000_000_000n - (creditRow.totalCostNanos! - creditRow.unpaidNanos));
    await expectMoneyConsistent({ settled: true });
  });

  it('a hanging upstream: every call times out with 504 and, the provider having had it, is charged what was reserved; so is a stalled stream', async () => {
    const account = await stack.account({ creditDollars: 5, budgetDollars: 5 });
    stack.upstream.setMode('hang');
    const hung = await Promise.all(Array.from({ length: 12 }, (_, i) => call(i % 2, account.value, { stream: i % 4 < 2, max_tokens: 200 })));
    expect(hung.map((outcome: GatewayOutcome) => [outcome.status, outcome.code])).toEqual(Array(12).fill([504, 'upstream_timeout']));
    await until(() => stack.upstream.openCalls() === 0, 'the gateway hung up on the provider');

    stack.upstream.setMode('stall');
    const stalled = await Promise.all(Array.from({ length: 4 }, (_, i) => call(i % 2, account.value, { stream: true, max_tokens: 200 })));
    expect(stalled.map((outcome) => [outcome.status, outcome.code, outcome.complete])).toEqual(Array(4).fill([200, 'upstream_timeout', true]));
    stack.upstream.setMode('ok');
    await until(async () => (await completionsOf(account.organizationId)).length === 16, 'every timed-out call is settled');
    const rows = await completionsOf(account.organizationId);
    // The provider may bill all it could have produced: each is charged its estimated input and 200 output tokens, flagged.
    expect(rows.every((row) => row.usageEstimated && row.outputTokens === 200 && row.inputTokens === row.estimatedInputTokens)).toBe(true);

    // Every hold is settled: nothing stays reserved, and the credit is what the rows cost less.
    await until(async () => (await openReservations(stack.db.db)) === 0, 'every hold is settled');
    const [spend] = await stack.db.db.select().from(keySpend).where(eq(keySpend.publishableKeyId, account.keyId));
    expect(spend?.reservedNanos).toBe(0n);
    const charged = rows.reduce((sum, row) => sum + row.totalCostNanos!, 0n);
    expect(await creditOf(account.organizationId)).toMatchObject({ balanceNanos: 5_000_000_000n - charged, reservedNanos: 0n });
    await expectMoneyConsistent({ settled: true });
  });
});
