import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';
import { messages, type UiText } from '../flows/messages.js';

/** argon2id with the library's OWASP defaults (~10 ms a hash, in a thread pool). */
export const hashPassword = (password: string) => hash(password);

export async function verifyPassword(hashed: string, password: string): Promise<boolean> {
  try {
    return await verify(hashed, password);
  } catch {
    return false;
  }
}

/** A hash to verify against when the identifier is unknown, so both answers take as long. */
let decoyHash: Promise<string> | undefined;
export const verifyDecoy = async (password: string) => {
  decoyHash ??= hash('meterway decoy password that never matches');
  await verifyPassword(await decoyHash, password);
};

const minLength = 8;
const maxLength = 1024;

/**
 * Kratos' breach check asks haveibeenpwned, which this service cannot reach; zxcvbn-ts' list of the
 * ~49,000 most common passwords from breach corpora stands in for it, offline. Read-only data.
 */
const breachedPasswords: ReadonlySet<string> = new Set(dictionary['passwords-common']);

/**
 * Kratos' password policy (identity-protocol.md §13), in its order: length, then similarity to
 * the identifier, then the breach check (case-insensitive).
 */
export function checkPasswordPolicy(password: string, identifier: string): UiText | undefined {
  const bytes = Buffer.byteLength(password);
  if (bytes < minLength) return messages.passwordTooShort(minLength, bytes);
  if (bytes > maxLength) return messages.passwordTooLong(maxLength, bytes);
  if (tooSimilar(identifier.toLowerCase(), password.toLowerCase())) return messages.passwordTooSimilar();
  if (breachedPasswords.has(password.toLowerCase())) return messages.passwordBreached();
  return undefined;
}

function tooSimilar(identifier: string, password: string): boolean {
  if (identifier.length > 256 || password.length > 256) return false;
  return levenshtein(identifier, password) < 5 || longestCommonSubstring(identifier, password) > password.length / 2;
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function longestCommonSubstring(a: string, b: string): number {
  let longest = 0;
  let previous = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      if (a[i - 1] === b[j - 1]) {
        current[j] = (previous[j - 1] ?? 0) + 1;
        longest = Math.max(longest, current[j] ?? 0);
      }
    }
    previous = current;
  }
  return longest;
}
