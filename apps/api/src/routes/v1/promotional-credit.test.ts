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

  it('an expiry during a call leaves what the call holds; the call is paid from it, and the rest leaves at the next sweep', async () => {
    const account = await t.account({ creditDollars: 0, budgetDollars: 1 });
    const expiresAt = new Date('2099-12-31T00:00:00.000Z');
    await postPromotionalGrant(t.testDb.db, {
      organizationId: account.organizationId,
      amountNanos: 1_000_000_000n,
      note: 'trial',
      expiresAt,
      actor: systemActor,
    });
    const expiries = () =>
      t.testDb.db
        .select()
        .from(creditEntries)
        .where(and(eq(creditEntries.organizationId, account.organizationId), eq(creditEntries.kind, 'grant_expiry')));
    const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: account.value, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });

    // A slow stream: admitted (its hold taken) and still answering while the grant expires.
    upstream().setMode('slow-stream');
    const stream = await client.chat.completions.create({ model, messages, max_tokens: 8, stream: true });
    const chunks = stream[Symbol.asyncIterator]();
    await chunks.next();
    const [held] = await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, account.organizationId));
    expect(held!.reservedNanos).toBeGreaterThan(0n);

    expect(await expireGrants(t.testDb.db, expiresAt)).toEqual({ expired: 1 });
    expect(await creditOf(t.testDb.db, account.organizationId)).toEqual({
      balanceNanos: held!.reservedNanos,
      owedNanos: 0n,
      promotionalNanos: held!.reservedNanos,
    });

    while (!(await chunks.next()).done);
    await t.settled();
    const [row] = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
    expect(row).toMatchObject({ totalCostNanos: callCost, unpaidNanos: 0n });
    expect(await creditOf(t.testDb.db, account.organizationId)).toEqual({
      balanceNanos: held!.reservedNanos - callCost,
      owedNanos: 0n,
      promotionalNanos: held!.reservedNanos - callCost,
    });

    expect(await expireGrants(t.testDb.db, new Date(expiresAt.getTime() + 60_000))).toEqual({ expired: 1 });
    expect(await creditOf(t.testDb.db, account.organizationId)).toEqual({ balanceNanos: 0n, owedNanos: 0n, promotionalNanos: 0n });
    expect((await expiries()).map((entry) => entry.amountNanos).reduce((sum, amount) => sum + amount, 0n)).toBe(-(1_000_000_000n - callCost));
  });
});
