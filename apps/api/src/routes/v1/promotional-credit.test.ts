import { and, eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { chatCompletions, creditBalances, creditEntries, creditGrants } from '../../db/schema/index.js';
import { systemActor } from '../../domain/audit/record-audit.js';
import { postPromotionalGrant } from '../../domain/credit/grant-credit.js';
import { expireGrants } from '../../domain/credit/expire-grants.js';
import { creditOf } from '../../domain/credit/ledger.js';
import { setupFakeUpstreamGateway } from '../../testing/fake-upstream-gateway.js';
import { listedCost } from '../../testing/price-list.js';

const { t, upstream } = setupFakeUpstreamGateway({ timeoutMs: 5000, idleTimeoutMs: 3000 });

const model = 'gpt-4o-mini';
const messages = [{ role: 'user' as const, content: 'Say hello in eight words.' }];
// The fake upstream answers 11 prompt tokens and max_tokens completion tokens.
const callCost = listedCost(model, { inputTokens: 11, outputTokens: 8 }).totalNanos;

describe('promotional credit through the gateway', () => {
  it('pays calls from grants first, soonest expiry first, then from paid credit', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const paid = 1_000_000_000n;
    const grant = (amountNanos: bigint, expiresAt: string, note: string) =>
      postPromotionalGrant(t.testDb.db, { organizationId: account.organizationId, amountNanos, note, expiresAt: new Date(expiresAt), actor: systemActor });
    // Granted later but expiring sooner: drawn first.
    const later = await grant(2n * callCost - callCost / 2n, '2099-12-31T00:00:00.000Z', 'trial');
    const sooner = await grant(callCost / 2n, '2099-06-30T00:00:00.000Z', 'support');
    const remaining = async () => {
      await t.settled();
      const rows = await t.testDb.db.select().from(creditGrants).where(eq(creditGrants.organizationId, account.organizationId));
      const of = (id: string) => rows.find((row) => row.id === id)?.remainingNanos;
      return { sooner: of(sooner.id), later: of(later.id), credit: await creditOf(t.testDb.db, account.organizationId) };
    };
    const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: account.value, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });
    const call = () => client.chat.completions.create({ model, messages, max_tokens: 8 });

    await call();
    // The sooner grant is spent, the later one paid the rest; the paid credit is untouched.
    expect(await remaining()).toEqual({
      sooner: 0n,
      later: callCost,
      credit: { balanceNanos: paid + callCost, owedNanos: 0n, promotionalNanos: callCost },
    });

    await call();
    expect(await remaining()).toEqual({ sooner: 0n, later: 0n, credit: { balanceNanos: paid, owedNanos: 0n, promotionalNanos: 0n } });

    await call();
    expect(await remaining()).toEqual({ sooner: 0n, later: 0n, credit: { balanceNanos: paid - callCost, owedNanos: 0n, promotionalNanos: 0n } });
  });

  /** An account with `paidDollars` of paid credit and a $1 grant (expiring in 2099), and a client for its key. */
  async function withGrant(paidDollars: number) {
    const account = await t.account({ creditDollars: paidDollars, budgetDollars: 1 });
    const expiresAt = new Date('2099-12-31T00:00:00.000Z');
    const grant = await postPromotionalGrant(t.testDb.db, {
      organizationId: account.organizationId,
      amountNanos: 1_000_000_000n,
      note: 'trial',
      expiresAt,
      actor: systemActor,
    });
    const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: account.value, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });
    /** A slow stream, admitted (its hold taken) and still answering: `finish` reads it to the end and waits for its settlement. */
    const startStream = async () => {
      upstream().setMode('slow-stream');
      const chunks = (await client.chat.completions.create({ model, messages, max_tokens: 8, stream: true }))[Symbol.asyncIterator]();
      await chunks.next();
      const [held] = await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, account.organizationId));
      expect(held!.reservedNanos).toBeGreaterThan(0n);
      return async () => {
        while (!(await chunks.next()).done);
        await t.settled();
        const [row] = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
        return row;
      };
    };
    /** The clock moves past the grant's last day without a sweep yet. */
    const passExpiry = () =>
      t.testDb.db
        .update(creditGrants)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(creditGrants.id, grant.id));
    const remainingOfGrant = async () => (await t.testDb.db.select().from(creditGrants).where(eq(creditGrants.id, grant.id)))[0]?.remainingNanos;
    const credit = () => creditOf(t.testDb.db, account.organizationId);
    return { account, expiresAt, client, startStream, passExpiry, remainingOfGrant, credit };
  }
  const paid = 1_000_000_000n;

  it('an expiry during a call takes the whole grant; the call is then charged to the paid credit', async () => {
    const { expiresAt, startStream, credit } = await withGrant(1);
    const finish = await startStream();
    expect(await expireGrants(t.testDb.db, expiresAt)).toEqual({ expired: 1 });
    expect(await credit()).toEqual({ balanceNanos: paid, owedNanos: 0n, promotionalNanos: 0n });

    expect(await finish()).toMatchObject({ totalCostNanos: callCost, unpaidNanos: 0n });
    expect(await credit()).toEqual({ balanceNanos: paid - callCost, owedNanos: 0n, promotionalNanos: 0n });
    expect(await expireGrants(t.testDb.db, new Date(expiresAt.getTime() + 60_000))).toEqual({ expired: 0 });
  });

  it('an expiry during a call with no paid credit left leaves the call’s cost owed, and the key refused until a top-up', async () => {
    const { expiresAt, startStream, credit, client } = await withGrant(0);
    const finish = await startStream();
    expect(await expireGrants(t.testDb.db, expiresAt)).toEqual({ expired: 1 });

    expect(await finish()).toMatchObject({ totalCostNanos: callCost, unpaidNanos: callCost });
    expect(await credit()).toEqual({ balanceNanos: 0n, owedNanos: callCost, promotionalNanos: 0n });
    upstream().setMode('ok');
    await expect(client.chat.completions.create({ model, messages, max_tokens: 8 })).rejects.toMatchObject({ status: 402 });
  });

  it('a grant past its expiry that no sweep has taken yet pays for nothing: admission refuses it, a settlement sweeps it first', async () => {
    // Only the expired grant: nothing is free, so the call is refused before it reaches the provider.
    const onlyGrant = await withGrant(0);
    await onlyGrant.passExpiry();
    upstream().setMode('ok');
    await expect(onlyGrant.client.chat.completions.create({ model, messages, max_tokens: 8 })).rejects.toMatchObject({
      status: 402,
      code: 'insufficient_quota',
    });

    // Admitted before the expiry, settled after it: the grant leaves first (an expiry entry, as the sweep's), the paid credit pays.
    const both = await withGrant(1);
    const finish = await both.startStream();
    await both.passExpiry();
    expect(await finish()).toMatchObject({ totalCostNanos: callCost, unpaidNanos: 0n });
    expect(await both.remainingOfGrant()).toBe(0n);
    expect(await both.credit()).toEqual({ balanceNanos: paid - callCost, owedNanos: 0n, promotionalNanos: 0n });
    const expiries = await t.testDb.db
      .select()
      .from(creditEntries)
      .where(and(eq(creditEntries.organizationId, both.account.organizationId), eq(creditEntries.kind, 'grant_expiry')));
    expect(expiries.map((entry) => entry.amountNanos)).toEqual([-1_000_000_000n]);
  });
});
