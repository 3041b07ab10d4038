import { countTokens, encodeChat } from 'gpt-tokenizer';

type ContentPart = { type?: string; text?: string };
export type ChatMessage = { role: string; content?: string | ContentPart[] | null; name?: string };

type ChatRole = 'system' | 'user' | 'assistant';

const textOf = (content: ChatMessage['content']) =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('\n') : '';

// Text that spells a special token (`<|endoftext|>`) is counted as the text it is, as OpenAI
// counts a user's message; the tokenizer's default would throw on it.
const asPlainText = { disallowedSpecial: new Set<string>() };

/** The chat framing gpt-tokenizer's encodeChat adds: once per chat, and per message by role. */
const primer = encodeChat([], 'gpt-4o').length;
const framing = Object.fromEntries(
  (['system', 'user', 'assistant'] as const).map((role) => [role, encodeChat([{ role, content: '' }], 'gpt-4o').length - primer]),
) as Record<ChatRole, number>;

// Apps send the same system prompt and few-shot messages with every call: their counts are kept
// (short texts only, and a bounded number of them).
const counted = new Map<string, number>();
const maxCountedLength = 4096;
const maxCounted = 2000;

function countText(text: string): number {
  if (!text) return 0;
  if (text.length > maxCountedLength) return countTokens(text, asPlainText);
  let count = counted.get(text);
  if (count === undefined) {
    count = countTokens(text, asPlainText);
    if (counted.size >= maxCounted) counted.clear();
    counted.set(text, count);
  }
  return count;
}

/**
 * Input tokens as OpenAI's chat format counts them (o200k encoding with the chat framing), the
 * same as gpt-tokenizer's encodeChat without building the token array. It is an estimate for
 * other providers' models, which is what the reservation needs.
 */
export function estimateInputTokens(messages: ChatMessage[]): number {
  let tokens = primer;
  for (const message of messages) {
    const role: ChatRole = message.role === 'system' || message.role === 'assistant' ? message.role : 'user';
    tokens += framing[role] + countText(textOf(message.content));
  }
  return tokens;
}

export const countTextTokens = (text: string) => (text ? countTokens(text, asPlainText) : 0);
