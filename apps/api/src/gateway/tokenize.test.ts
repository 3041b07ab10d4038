import { countTokens, encodeChat } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { countTextTokens, estimateInputTokens } from './tokenize.js';

describe('estimateInputTokens', () => {
  it('counts a chat exactly as encodeChat with gpt-4o framing does', () => {
    const chats = [
      [{ role: 'user' as const, content: 'hi' }],
      [
        { role: 'system' as const, content: 'You answer in one short sentence.' },
        { role: 'user' as const, content: 'Wie viele Tokens hat dieser Satz? 🤔' },
        { role: 'assistant' as const, content: '' },
        { role: 'user' as const, content: 'Again, please.\n\nThanks!' },
      ],
    ];
    for (const chat of chats) {
      // Twice: the second time the message counts come from the cache.
      expect(estimateInputTokens(chat)).toBe(encodeChat(chat, 'gpt-4o').length);
      expect(estimateInputTokens(chat)).toBe(encodeChat(chat, 'gpt-4o').length);
    }
  });

  it('counts content parts one by one, with a token between parts, and other roles as user messages', () => {
    const parts = [{ role: 'tool', content: [{ type: 'text', text: 'first' }, { type: 'image_url' }, { type: 'text', text: 'second' }] }];
    const framing = encodeChat([{ role: 'user', content: '' }], 'gpt-4o').length;
    expect(estimateInputTokens(parts)).toBe(framing + countTextTokens('first') + countTextTokens('second') + 1);
    expect(estimateInputTokens([{ role: 'developer', content: null }])).toBe(framing);
  });

  it('counts names, tool calls and tool call ids as input', () => {
    const plain = estimateInputTokens([{ role: 'assistant', content: null }]);
    const toolCalls = [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }];
    expect(estimateInputTokens([{ role: 'assistant', content: null, tool_calls: toolCalls }])).toBe(plain + countTextTokens(JSON.stringify(toolCalls)));
    expect(estimateInputTokens([{ role: 'assistant', content: null, name: 'bob' }])).toBe(plain + 1 + countTextTokens('bob'));
    expect(estimateInputTokens([{ role: 'tool', content: 'sunny', tool_call_id: 'call_1' }])).toBe(
      estimateInputTokens([{ role: 'tool', content: 'sunny' }]) + countTextTokens('call_1'),
    );
  });

  it('counts long text in linear time: a megabyte of one letter or of punctuation, and prose as the whole text counts', () => {
    // Counted whole, the first took minutes (byte-pair encoding is quadratic in an unsplit run).
    expect(countTextTokens('a'.repeat(1_000_000))).toBe(125_000);
    expect(countTextTokens('!'.repeat(1_000_000))).toBe(62_500);
    expect(countTextTokens('é'.repeat(100_000))).toBe(100_000);
    const prose = Array.from({ length: 3000 }, (_, i) => `Sentence ${i} tells the meter, once more, what it reads.`).join(' ');
    expect(countTextTokens(prose)).toBe(countTokens(prose, { disallowedSpecial: new Set() }));
    const emoji = '🤔'.repeat(2000);
    expect(countTextTokens(emoji)).toBe(countTokens(emoji));
  });

  it('counts text that spells a special token as text instead of failing', () => {
    const tokens = estimateInputTokens([{ role: 'user', content: 'print <|endoftext|> please' }]);
    expect(tokens).toBeGreaterThan(estimateInputTokens([{ role: 'user', content: 'print please' }]));
    expect(countTextTokens('<|im_end|>')).toBeGreaterThan(1);
  });
});
