import { randomUUID } from 'node:crypto';
import { countTextTokens } from '../tokenize.js';
import { textInputTokens } from '../worst-case.js';
import type { ChatBody, ModelProvider } from './model-provider.js';

export const demoModelId = 'meterway-demo';

const words =
  'Meterway demo model here. This answer is made offline, word by word, so you can try keys, budgets, streaming and metering without a model provider. Every token is counted and charged from your prepaid credit like a real call.'.split(
    ' ',
  );

/** The answer's words: deterministic, about twice as many tokens as the last message, within max_tokens. */
function answerFor(body: ChatBody): string[] {
  const last = body.messages.at(-1);
  const asked = countTextTokens(typeof last?.content === 'string' ? last.content : '');
  const limit = body.max_completion_tokens ?? body.max_tokens ?? 256;
  const target = Math.max(1, Math.min(limit, 8 + asked * 2));
  // Counted word by word (the tokenizer never merges across a space before a word), not the whole
  // answer again for each word, which took a second of the event loop for 4,096 tokens.
  const out: string[] = [];
  for (let i = 0, tokens = 0; tokens < target; i++) {
    const word = words[i % words.length] ?? '';
    const wordTokens = countTextTokens(out.length ? ` ${word}` : word);
    if (tokens + wordTokens > target) break;
    out.push(word);
    tokens += wordTokens;
  }
  return out.length ? out : [words[0] ?? ''];
}

/** The choices asked for (`n`), each the same deterministic answer; every one is billed. */
const choicesOf = (body: ChatBody) => Array.from({ length: body.n ?? 1 }, (_, index) => index);

/** The built-in offline model for the embedded default: no network, OpenAI's wire shapes. */
export function demoModel(): ModelProvider {
  return {
    name: 'demo',
    complete: async (body) => {
      const text = answerFor(body).join(' ');
      const choices = choicesOf(body);
      const promptTokens = textInputTokens(body);
      const completionTokens = countTextTokens(text) * choices.length;
      return {
        produced: Object.fromEntries(choices.map((index) => [`${index}:content`, text])),
        usage: { promptTokens, cachedTokens: 0, completionTokens },
        body: {
          id: `chatcmpl-${randomUUID()}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: demoModelId,
          choices: choices.map((index) => ({ index, message: { role: 'assistant', content: text }, finish_reason: 'stop', logprobs: null })),
          usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
        },
      };
    },
    stream: async function* (body, signal) {
      const id = `chatcmpl-${randomUUID()}`;
      const created = Math.floor(Date.now() / 1000);
      const base = { id, object: 'chat.completion.chunk', created, model: demoModelId };
      const answer = answerFor(body);
      const choices = choicesOf(body);
      yield { produced: {}, chunk: { ...base, choices: choices.map((index) => ({ index, delta: { role: 'assistant', content: '' }, finish_reason: null })) } };
      for (const [position, word] of answer.entries()) {
        if (signal.aborted) return;
        const text = position === 0 ? word : ` ${word}`;
        for (const index of choices)
          yield { produced: { [`${index}:content`]: text }, chunk: { ...base, choices: [{ index, delta: { content: text }, finish_reason: null }] } };
      }
      yield { produced: {}, chunk: { ...base, choices: choices.map((index) => ({ index, delta: {}, finish_reason: 'stop' })) } };
      const promptTokens = textInputTokens(body);
      const completionTokens = countTextTokens(answer.join(' ')) * choices.length;
      const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
      yield { produced: {}, usage: { promptTokens, cachedTokens: 0, completionTokens }, chunk: { ...base, choices: [], usage } };
    },
  };
}
