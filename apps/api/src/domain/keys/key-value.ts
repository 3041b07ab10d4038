import { randomBytes } from 'node:crypto';

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `pk_live_` (or `sk_live_` for a secret key) and 32 base62 characters (≈190 bits) from the CSPRNG. */
export function newKeyValue(prefix: 'pk_live_' | 'sk_live_' = 'pk_live_'): string {
  let out = '';
  while (out.length < 32) {
    for (const byte of randomBytes(48)) {
      // 62 * 4 = 248: larger bytes are skipped so every character is equally likely.
      if (byte < 248 && out.length < 32) out += base62[byte % 62];
    }
  }
  return `${prefix}${out}`;
}

/** A value shaped like a publishable key we issue (`pk_live_` and base62; older keys were 24 to 64 characters long). */
export const isPublishableKeyValue = (value: string): boolean => /^pk_live_[0-9A-Za-z]{24,64}$/.test(value);
