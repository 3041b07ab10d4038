import { eq } from 'drizzle-orm';
import { countTokens } from 'gpt-tokenizer';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { chatCompletions } from '../../db/schema/index.js';
import { setupFakeUpstreamGateway } from '../../testing/fake-upstream-gateway.js';

/*
 * A provider that reports no usage is charged from our own count of what it produced. It bills
 * every output token, not only the words of `content`: tool calls (their names and arguments),
 * refusals and reasoning text too; output that is not text (audio) is charged what was reserved.
 */
const { t, upstream } = setupFakeUpstreamGateway();

const model = 'gpt-4o-mini';
const messages = [{ role: 'user' as const, content: 'Look up the weather in Paris.' }];
const tokens = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
// 4,000 characters of arguments, as a long tool call writes them.
const longArguments = JSON.stringify({ city: 'Paris', notes: 'cloudy with light rain in the afternoon '.repeat(100) });
const toolCall = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: longArguments } };
const refusal = "I'm sorry, but I can't help with looking up that person's home address or anything else that identifies them.";
const reasoning = 'The user wants the weather. I should call the weather tool for Paris and report the forecast briefly. '.repeat(20);

async function charged(produced: Record<string, unknown>, stream: boolean) {
  upstream().setMode('no-usage');
  upstream().setProduced(produced);
  const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
  const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: account.value, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });
  if (stream) {
    const chunks = await client.chat.completions.create({ model, messages, max_tokens: 2000, stream: true });
    for await (const chunk of chunks) void chunk;
  } else {
    await client.chat.completions.create({ model, messages, max_tokens: 2000 });
  }
  await t.settled();
  const [row] = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
  return row!;
}

describe('a provider that reports no usage', () => {
  for (const stream of [false, true]) {
    const how = stream ? 'streamed' : 'JSON';
    // The fake's words: max_tokens is above its eight, so it writes all eight.
    const words = tokens('alpha beta gamma delta epsilon zeta eta theta');

    it(`charges a tool call's name and arguments as output (${how})`, async () => {
      const row = await charged({ tool_calls: [toolCall] }, stream);
      expect(row.usageEstimated).toBe(true);
      expect(row.outputTokens).toBeGreaterThanOrEqual(words + tokens(longArguments) + tokens('get_weather'));
    });

    it(`charges a legacy function call's name and arguments as output (${how})`, async () => {
      const row = await charged({ function_call: toolCall.function }, stream);
      expect(row.outputTokens).toBeGreaterThanOrEqual(words + tokens(longArguments));
    });

    it(`charges a refusal and reasoning text as output (${how})`, async () => {
      const row = await charged({ refusal, reasoning_content: reasoning }, stream);
      expect(row.outputTokens).toBeGreaterThanOrEqual(words + tokens(refusal) + tokens(reasoning));
    });

    it(`charges what was reserved for output it cannot count, such as audio (${how})`, async () => {
      const row = await charged({ audio: { id: 'audio_1', data: 'UklGRg==', transcript: 'hello', expires_at: 1 } }, stream);
      expect(row).toMatchObject({ usageEstimated: true, outputTokens: 2000 });
      expect(row.inputTokens).toBe(row.estimatedInputTokens);
    });
  }
});
