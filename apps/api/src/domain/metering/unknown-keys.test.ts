import { describe, expect, it } from 'vitest';
import { createUnknownKeys } from './unknown-keys.js';

describe('unknown key values per client address', () => {
  it('lets an address present the most a minute allows, then refuses it until that minute, counted from its first, is over', () => {
    const unknownKeys = createUnknownKeys(3);
    const start = Date.UTC(2026, 10, 29, 12, 0, 0);
    for (let i = 0; i < 3; i++) {
      expect(unknownKeys.retryAfter('203.0.113.7', start + i * 1000)).toBe(0);
      unknownKeys.count('203.0.113.7', start + i * 1000);
    }
    expect(unknownKeys.retryAfter('203.0.113.7', start + 2_500)).toBe(58);
    expect(unknownKeys.retryAfter('203.0.113.7', start + 59_001)).toBe(1);
    expect(unknownKeys.retryAfter('198.51.100.1', start + 2_500)).toBe(0);
    expect(unknownKeys.retryAfter('203.0.113.7', start + 60_000)).toBe(0);
    unknownKeys.count('203.0.113.7', start + 60_000);
    expect(unknownKeys.retryAfter('203.0.113.7', start + 60_001)).toBe(0);
  });
});
