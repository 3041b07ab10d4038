import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Anti-CSRF tokens in nosurf's format (identity-protocol.md §3.2): the cookie holds a real token
 * of 32 random bytes; each flow carries it masked with a fresh pad, so no two pages show the same
 * value (BREACH), and a submit is accepted when its token unmasks to the cookie's. Hand-written:
 * no maintained npm package speaks nosurf's masking, which the Ory SDK and elements expect.
 */
const tokenLength = 32;

export const csrfCookieName = (publicUrl: string) => `csrf_token_${createHash('sha256').update(publicUrl).digest('hex')}`;

export function newRealToken(): string {
  return randomBytes(tokenLength).toString('base64');
}

export function maskToken(realToken: string): string {
  const real = Buffer.from(realToken, 'base64');
  const pad = randomBytes(tokenLength);
  const masked = Buffer.alloc(tokenLength);
  for (let i = 0; i < tokenLength; i++) masked[i] = (real[i] ?? 0) ^ (pad[i] ?? 0);
  return Buffer.concat([pad, masked]).toString('base64');
}

function unmask(token: string): Buffer | undefined {
  const bytes = Buffer.from(token, 'base64');
  if (bytes.length === tokenLength) return bytes;
  if (bytes.length !== tokenLength * 2) return undefined;
  const real = Buffer.alloc(tokenLength);
  for (let i = 0; i < tokenLength; i++) real[i] = (bytes[i] ?? 0) ^ (bytes[i + tokenLength] ?? 0);
  return real;
}

/** True when `sentToken` (masked or raw) carries the same real token as the cookie. */
export function tokensMatch(sentToken: string, realToken: string): boolean {
  const sent = unmask(sentToken);
  const real = Buffer.from(realToken, 'base64');
  return sent !== undefined && real.length === tokenLength && timingSafeEqual(sent, real);
}
