import { countTokens, encodeChat } from 'gpt-tokenizer';
import { LRUCache } from 'lru-cache';

type ContentPart = { type?: string; text?: string; refusal?: string };
export type ChatMessage = {
  role: string;
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: unknown;
  function_call?: unknown;
  tool_call_id?: string;
  refusal?: string | null;
};

type ChatRole = 'system' | 'user' | 'assistant';

// Text that spells a special token (`<|endoftext|>`) is counted as the text it is, as OpenAI
// counts a user's message; the tokenizer's default would throw on it.
const asPlainText = { disallowedSpecial: new Set<string>() };

/** The chat framing gpt-tokenizer's encodeChat adds: once per chat, and per message by role. */
const primer = encodeChat([], 'gpt-4o').length;
const framing = Object.fromEntries(
  (['system', 'user', 'assistant'] as const).map((role) => [role, encodeChat([{ role, content: '' }], 'gpt-4o').length - primer]),
) as Record<ChatRole, number>;

/**
 * Byte-pair encoding takes time quadratic in the length of a run the tokenizer's pattern does not
 * split: a megabyte of one letter, or of punctuation, held the event loop for minutes. A long text
 * is counted in pieces of at most this many characters, each cut just before a space when one is
 * near, so words keep their tokens: time linear in the length, and a count that a cut through a
 * long run may raise by a token or so per piece (a hold a little larger, never a charge: calls are
 * charged what the provider reports).
 */
const pieceLength = 1024;

function pieceEnd(text: string, start: number): number {
  const end = start + pieceLength;
  if (end >= text.length) return text.length;
  const space = text.lastIndexOf(' ', end);
  if (space > start + pieceLength / 2) return space;
  // Never between the halves of a surrogate pair.
  const previous = text.charCodeAt(end - 1);
  return previous >= 0xd800 && previous <= 0xdbff ? end - 1 : end;
}

export function countTextTokens(text: string): number {
  let tokens = 0;
  for (let start = 0; start < text.length;) {
    const end = pieceEnd(text, start);
    tokens += countTokens(text.slice(start, end), asPlainText);
    start = end;
  }
  return tokens;
}

// Apps send the same system prompt and few-shot messages with every call: their counts are kept
// (short texts only, and a bounded number of them).
const counted = new LRUCache<string, number>({ max: 2000 });
const maxCountedLength = 4096;

function countText(text: string): number {
  if (text.length > maxCountedLength) return countTextTokens(text);
  let count = counted.get(text);
  if (count === undefined) {
    count = countTextTokens(text);
    counted.set(text, count);
  }
  return count;
}

/** A JSON value's tokens as its compact JSON text: what is billed for schemas and calls is never longer. */
export const countJson = (value: unknown) => countText(JSON.stringify(value) ?? '');

const partText = (part: ContentPart) => (typeof part.text === 'string' ? part.text : typeof part.refusal === 'string' ? part.refusal : '');

/** Each text part on its own (a joined text can merge tokens across parts, counting fewer), one more for each part after the first. */
function contentTokens(content: ChatMessage['content']): number {
  if (typeof content === 'string') return countText(content);
  if (!Array.isArray(content)) return 0;
  const texts = content.map(partText).filter((text) => text !== '');
  return texts.reduce((sum, text) => sum + countText(text), 0) + Math.max(texts.length - 1, 0);
}

/** What a message carries besides its content, billed as input: tool calls as their JSON (no published formula). */
function extrasOf(message: ChatMessage): number {
  let tokens = 0;
  // OpenAI's cookbook: a name costs its tokens and one more.
  if (typeof message.name === 'string') tokens += 1 + countText(message.name);
  if (message.tool_calls !== undefined && message.tool_calls !== null) tokens += countJson(message.tool_calls);
  if (message.function_call !== undefined && message.function_call !== null) tokens += countJson(message.function_call);
  if (typeof message.tool_call_id === 'string') tokens += countText(message.tool_call_id);
  if (typeof message.refusal === 'string') tokens += countText(message.refusal);
  return tokens;
}

/**
 * The messages' tokens as OpenAI's chat format counts them (o200k encoding with the chat framing),
 * the same as gpt-tokenizer's encodeChat without building the token array, plus names and tool
 * calls. Images are not text: worst-case.ts counts them. For other providers' models it is an
 * estimate, which is what the reservation needs.
 */
export function estimateInputTokens(messages: ChatMessage[]): number {
  let tokens = primer;
  for (const message of messages) {
    const role: ChatRole = message.role === 'system' || message.role === 'assistant' ? message.role : 'user';
    tokens += framing[role] + contentTokens(message.content) + extrasOf(message);
  }
  return tokens;
}
