import { describe, expect, it } from 'vitest';
import { csrfCookieName, maskToken, newRealToken, tokensMatch } from './csrf.js';

describe('nosurf tokens', () => {
  it('masks a 44-character real token into a fresh 88-character token each time', () => {
    const real = newRealToken();
    expect(real).toHaveLength(44);
    const first = maskToken(real);
    const second = maskToken(real);
    expect(first).toHaveLength(88);
    expect(first).not.toBe(second);
    expect(tokensMatch(first, real)).toBe(true);
    expect(tokensMatch(second, real)).toBe(true);
  });

  it('accepts the raw token and rejects another one, garbage and empty input', () => {
    const real = newRealToken();
    expect(tokensMatch(real, real)).toBe(true);
    expect(tokensMatch(maskToken(newRealToken()), real)).toBe(false);
    expect(tokensMatch('not base64 at all', real)).toBe(false);
    expect(tokensMatch('', real)).toBe(false);
  });

  it('names the cookie after the sha256 of the public URL', () => {
    expect(csrfCookieName('http://localhost:4000')).toMatch(/^csrf_token_[0-9a-f]{64}$/);
  });
});
