import type { Database } from '@meterway/db';
import { and, eq, inArray, type SQL } from 'drizzle-orm';
import { chatCompletions, publishableKeys } from '../../db/schema/index.js';

/** A list's key filter (spec §2 list parameters): one key, named as a publishable or a secret key. */
export type KeyFilter = { publishableKeyId?: string | undefined; secretKeyId?: string | undefined };

/**
 * The usage rows of the key the filter names, only if it is a key of that kind: a secret key's id
 * given as publishableKeyId matches nothing, like another organisation's key. `scope` names the
 * filter for page tokens.
 */
export function keyFilterOf(db: Database, organizationId: string, filter: KeyFilter): { where: SQL | undefined; scope: string } {
  const [kind, keyId] = filter.secretKeyId ? (['secret', filter.secretKeyId] as const) : (['publishable', filter.publishableKeyId] as const);
  if (!keyId) return { where: undefined, scope: 'all-keys' };
  const ofThatKind = db
    .select({ id: publishableKeys.id })
    .from(publishableKeys)
    .where(and(eq(publishableKeys.organizationId, organizationId), eq(publishableKeys.id, keyId), eq(publishableKeys.kind, kind)));
  return { where: and(eq(chatCompletions.publishableKeyId, keyId), inArray(chatCompletions.publishableKeyId, ofThatKind)), scope: `${kind}:${keyId}` };
}

/** The usage row's key, as the contracts name it: a publishable key's or a secret key's id. */
export const keyIdsOf = (keyId: string, secretKeys: ReadonlySet<string>) =>
  secretKeys.has(keyId) ? { publishableKeyId: null, secretKeyId: keyId } : { publishableKeyId: keyId, secretKeyId: null };

/** Which of these keys are secret keys (one query for a page of rows). */
export async function secretKeysAmong(db: Database, organizationId: string, keyIds: readonly string[]): Promise<Set<string>> {
  if (keyIds.length === 0) return new Set();
  const rows = await db
    .select({ id: publishableKeys.id })
    .from(publishableKeys)
    .where(and(eq(publishableKeys.organizationId, organizationId), inArray(publishableKeys.id, [...new Set(keyIds)]), eq(publishableKeys.kind, 'secret')));
  return new Set(rows.map((row) => row.id));
}
