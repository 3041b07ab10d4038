import { defaultPerClientLimits, type PublishableKey, type PublishableKeyFields } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import type { Acting } from '../audit/record-audit.js';
import { dollarsToNanos } from '../money.js';
import type { Viewer } from '../people/ensure-person.js';
import { newKeyValue } from './key-value.js';
import { createKeyOf, deleteKeyOf, type KeyKindSpec, listKeysOf, rollKeyOf, sharedFieldsOf, sharedSettingsOf, updateKeyOf } from './key-store.js';

export { liveKeyOf } from './key-store.js';

/** A validated key form (contracts' publishableKeyInputSchema output). */
export type KeyInput = PublishableKeyFields;

/** A publishable key lives in web pages: its value is stored and shown as it is, and a new one caps each visitor's address by default. */
const publishable: KeyKindSpec<PublishableKey, KeyInput, KeyInput> = {
  kind: 'publishable',
  unknownMessage: 'Unknown publishable key.',
  newValue: () => {
    const value = newKeyValue('pk_live_');
    return { stored: value, shown: value, prefix: null };
  },
  created: (input) => ({
    allowedOrigins: input.allowedOrigins,
    clientRequestsPerMinute: defaultPerClientLimits.requestsPerMinute,
    clientSpendPerDayNanos: dollarsToNanos(defaultPerClientLimits.spendPerDay),
  }),
  updated: (input) => ({ allowedOrigins: input.allowedOrigins }),
  toContract: (key, spend, now) => ({ ...sharedFieldsOf(key, spend, now), value: key.value, allowedOrigins: key.allowedOrigins }),
  settingsOf: (key) => ({ ...sharedSettingsOf(key), allowedOrigins: key.allowedOrigins }),
};

export const listKeys = (db: Database, viewer: Pick<Viewer, 'organizationId'>, now: Date) => listKeysOf(db, publishable, viewer.organizationId, now);

export const createKey = (db: Database, viewer: Acting, input: KeyInput, now: Date) => createKeyOf(db, publishable, viewer, input, now);

export const updateKey = (db: Database, viewer: Acting, keyId: string, input: KeyInput, now: Date) => updateKeyOf(db, publishable, viewer, keyId, input, now);

export const rollKey = (db: Database, viewer: Acting, keyId: string, overlapHours: number, now: Date) =>
  rollKeyOf(db, publishable, viewer, keyId, overlapHours, now);

export const deleteKey = (db: Database, viewer: Acting, keyId: string, now: Date, reason?: string) => deleteKeyOf(db, publishable, viewer, keyId, now, reason);
