import { type SecretKey, type SecretKeyFields, secretKeyPrefixLength, type SecretKeyUpdateFields } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import type { Acting } from '../audit/record-audit.js';
import { newKeyValue } from './key-value.js';
import { createKeyOf, deleteKeyOf, type KeyKindSpec, listKeysOf, rollKeyOf, sharedFieldsOf, sharedSettingsOf, updateKeyOf } from './key-store.js';
import type { SecretKeyHasher } from './secret-key-hash.js';

/**
 * A secret key lives on the account holder's servers: stored only as its keyed hash, shown once
 * (on create and roll), recognised by its prefix. It has no origins (the gateway refuses it from a
 * browser) and no per-address caps unless set: a server calls from one address.
 */
const secret = (hash: SecretKeyHasher): KeyKindSpec<SecretKey, SecretKeyFields, SecretKeyUpdateFields> => ({
  kind: 'secret',
  unknownMessage: 'Unknown secret key.',
  newValue: () => {
    const value = newKeyValue('sk_live_');
    return { stored: hash(value), shown: value, prefix: value.slice(0, secretKeyPrefixLength) };
  },
  created: (input) => ({ scope: input.scope }),
  updated: () => ({}),
  toContract: (key, spend, now, shown) => ({
    ...sharedFieldsOf(key, spend, now),
    scope: key.scope ?? 'gateway',
    prefix: key.prefix ?? '',
    ...(shown === undefined ? {} : { value: shown }),
  }),
  settingsOf: (key) => ({ ...sharedSettingsOf(key), scope: key.scope }),
});

/** The organisation's secret keys, made and stored with the api's key hasher. */
export function secretKeys(db: Database, hash: SecretKeyHasher) {
  const spec = secret(hash);
  return {
    list: (viewer: Acting, now: Date) => listKeysOf(db, spec, viewer.organizationId, now),
    create: (viewer: Acting, input: SecretKeyFields, now: Date) => createKeyOf(db, spec, viewer, input, now),
    update: (viewer: Acting, keyId: string, input: SecretKeyUpdateFields, now: Date) => updateKeyOf(db, spec, viewer, keyId, input, now),
    roll: (viewer: Acting, keyId: string, overlapHours: number, now: Date) => rollKeyOf(db, spec, viewer, keyId, overlapHours, now),
    delete: (viewer: Acting, keyId: string, now: Date, reason?: string) => deleteKeyOf(db, spec, viewer, keyId, now, reason),
  };
}
