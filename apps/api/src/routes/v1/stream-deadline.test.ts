import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletions, reservations } from '../../db/schema/index.js';
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

describe('a stream that would outlive its hold', () => {
  it('is cut at half the hold\'s lifetime and charged all that was reserved, before the hold could be swept', async () => {
    upstream.setMode('slow-stream');
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: account.value, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Slowly.' }], max_tokens: 8, stream: true });
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
