import { eq, sql } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletions, creditBalances, reservations } from '../../db/schema/index.js';
import { rowsOf } from '../../domain/metering/sql-values.js';
import { releaseExpired } from '../../domain/metering/settlement.js';
import { openAiCompatible } from '../../gateway/providers/openai-compatible.js';
import { startFakeUpstream } from '../../testing/fake-upstream.js';
import { setupGateway } from '../../testing/gateway-fixture.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';

let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(async () => upstream?.close());

// Holds live 2 s, so a call may run for 1 s: the slow stream (8 words, 150 ms apart) outlives that.
const t = setupGateway(() => openAiCompatible({ baseUrl: upstream.baseUrl, timeoutMs: 1000, idleTimeoutMs: 1000 }), {
  RESERVATION_TTL_MS: '2000',
  UPSTREAM_TIMEOUT_MS: '1000',
});

describe('a call its instance never settles', () => {
  it('is charged all that was reserved once its hold expires, since it reached the provider', async () => {
    upstream.setMode('ok');
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const db = t.testDb.db;
    const [saved] = rowsOf<{ definition: string }>(
      await db.execute(sql`select pg_get_functiondef('app.settle_calls(uuid, uuid, date, jsonb, timestamptz)'::regprocedure) as definition`),
    );
    // Settlements fail until the call's retries give up (three quarters of the 2 s hold).
    await db.execute(
      sql.raw(`create or replace function app.settle_calls(p_organization_id uuid, p_key_id uuid, p_period_start date, p_calls jsonb, p_now timestamptz)
      returns table (completion_id text, over_hold_nanos bigint, unpaid_nanos bigint) language plpgsql as $$
      begin raise exception 'the database refuses settlements'; end; $$`),
    );
    let answered: string;
    let held: typeof reservations.$inferSelect | undefined;
    try {
      const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: account.value, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });
      answered = (await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 6 })).id;
      // The hold records that the call reached the provider (written beside the call, not before it).
      for (let poll = 0; poll < 100 && !held?.forwarded; poll++) {
        [held] = await db.select().from(reservations).where(eq(reservations.organizationId, account.organizationId));
        if (!held?.forwarded) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(held?.forwarded).toMatchObject({ completion_id: answered, usage_estimated: true, output_tokens: 6 });
      await t.settled();
    } finally {
      await db.execute(sql.raw(saved!.definition));
    }
    expect(await db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId))).toEqual([]);

    // Swept here, or by the app's own sweeper if this machine is slow: either way charged once.
    await releaseExpired(db, new Date(held!.expiresAt.getTime() + 1));
    const [row] = await db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
    expect(row).toMatchObject({ id: answered, usageEstimated: true, outputTokens: 6, totalCostNanos: held!.amountNanos });
    const [balance] = await db.select().from(creditBalances).where(eq(creditBalances.organizationId, account.organizationId));
    expect(balance).toMatchObject({ balanceNanos: 1_000_000_000n - held!.amountNanos, reservedNanos: 0n });
    await expectLedgerConsistent(db);
  });
});

describe('a stream that would outlive its hold', () => {
  it("is cut at half the hold's lifetime and charged all that was reserved, before the hold could be swept", async () => {
    upstream.setMode('slow-stream');
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: account.value, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Slowly.' }],
      max_tokens: 8,
      stream: true,
    });
    let words = 0;
    const ended = await (async () => {
      for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) words++;
    })().catch((error: unknown) => error);
    // The stream ends with an error event that says so.
    expect(ended).toBeInstanceOf(OpenAI.APIError);
    expect((ended as Error).message).toMatch(/did not answer in time.*charged what was reserved/);
    expect(words).toBeGreaterThan(0);
    expect(words).toBeLessThan(8);
    await t.settled();
    const [row] = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
    // The provider may bill the whole answer it was still producing: the estimated input and all 8 tokens.
    expect(row).toMatchObject({ usageEstimated: true, outputTokens: 8, overHoldNanos: 0n });
    expect(await t.testDb.db.select().from(reservations)).toEqual([]);
    await expectLedgerConsistent(t.testDb.db);
  });
});
