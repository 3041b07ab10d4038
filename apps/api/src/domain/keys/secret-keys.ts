import { canMakeAdminKey, type Role, type SecretKey, type SecretKeyFields, secretKeyPrefixLength, type SecretKeyUpdateFields } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import { publishableKeys } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
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

/** A person whose role may not do all an admin key does gets none: not made, not rolled (the new value is shown to them). */
function refuseAdminKeyBeyond(role: Role | undefined) {
  if (role === undefined || canMakeAdminKey(role)) return;
  throw new AppError(
    'Forbidden',
    `An admin key reads the credit history and manages keys; your role (${role}) may not do all of that, so it cannot make or roll one. Ask an owner or an admin.`,
  );
}

/** The organisation's secret keys, made and stored with the api's key hasher. `role` is the viewer's, where a person acts. */
export function secretKeys(db: Database, hash: SecretKeyHasher) {
  const spec = secret(hash);
  const scopeOf = async (organizationId: string, keyId: string) => {
    const [key] = await db
      .select({ scope: publishableKeys.scope })
      .from(publishableKeys)
      .where(and(eq(publishableKeys.organizationId, organizationId), eq(publishableKeys.id, keyId), eq(publishableKeys.kind, 'secret')));
    return key?.scope;
  };
  return {
    list: (viewer: Acting, now: Date) => listKeysOf(db, spec, viewer.organizationId, now),
    create: (viewer: Acting & { role?: Role }, input: SecretKeyFields, now: Date) => {
      if (input.scope === 'admin') refuseAdminKeyBeyond(viewer.role);
      return createKeyOf(db, spec, viewer, input, now);
    },
    update: (viewer: Acting, keyId: string, input: SecretKeyUpdateFields, now: Date) => updateKeyOf(db, spec, viewer, keyId, input, now),
    roll: async (viewer: Acting & { role?: Role }, keyId: string, overlapHours: number, now: Date) => {
      if ((await scopeOf(viewer.organizationId, keyId)) === 'admin') refuseAdminKeyBeyond(viewer.role);
      return rollKeyOf(db, spec, viewer, keyId, overlapHours, now);
    },
    delete: (viewer: Acting, keyId: string, now: Date, reason?: string) => deleteKeyOf(db, spec, viewer, keyId, now, reason),
  };
}
