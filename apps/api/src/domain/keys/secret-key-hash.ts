import { createHmac, randomBytes } from 'node:crypto';
import { type Database, loadStoredSecret } from '@meterway/db';
import { secrets } from '../../db/schema/index.js';

/**
 * A secret key as stored: its keyed hash (HMAC-SHA256 under the api's key-hash secret), never the
 * key. The gateway hashes the key a call presents and looks the hash up like a publishable key's
 * value; a leaked database holds no key, and without the secret not even a way to test a guess.
 */
export type SecretKeyHasher = (value: string) => string;

const secretKeyPattern = /^sk_live_[0-9A-Za-z]{32}$/;

/** A value shaped like a secret key (`sk_live_` and 32 base62 characters). */
export const isSecretKeyValue = (value: string): boolean => secretKeyPattern.test(value);

export const secretKeyHasher =
  (secret: string): SecretKeyHasher =>
  (value) =>
    `hmac-sha256:${createHmac('sha256', secret).update(value).digest('base64url')}`;

/** KEY_HASH_SECRET when set (keeping it out of the database); otherwise one made once per database. Changing it invalidates every secret key. */
export async function loadSecretKeyHasher(db: Database, configured: string | undefined): Promise<SecretKeyHasher> {
  const secret = await loadStoredSecret(db, {
    table: secrets,
    name: 'secret-key-hash',
    configured,
    generate: () => randomBytes(32).toString('base64url'),
    service: 'api',
  });
  return secretKeyHasher(secret);
}
