import type { Role } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq, isNull } from 'drizzle-orm';
import { keyValues, memberships, publishableKeys } from '../../db/schema/index.js';
import type { Acting } from '../audit/record-audit.js';
import { authenticatesWith, ownsValue } from '../metering/find-key.js';

export type PresentedSecretKey = {
  id: string;
  organizationId: string;
  name: string;
  prefix: string;
  scope: 'gateway' | 'admin';
  /** Who was last shown the key's value; null for a key made before makers were recorded. */
  madeByPersonId: string | null;
  /** That person's role in the organisation now; null once they left it. */
  makerRole: Role | null;
};

/**
 * The live secret key whose stored hash this is, or whose previous value (after a roll) still works
 * at `now`; a deleted key, a publishable key or a value of neither finds nothing. Read from the
 * database on every request, not from the gateway's key cache: a key deleted or rolled a moment ago
 * stops opening the organisation's account at once.
 */
export async function findSecretKey(db: Database, storedHash: string, now: Date): Promise<PresentedSecretKey | undefined> {
  const [key] = await db
    .select({
      id: publishableKeys.id,
      organizationId: publishableKeys.organizationId,
      name: publishableKeys.name,
      prefix: publishableKeys.prefix,
      scope: publishableKeys.scope,
      madeByPersonId: publishableKeys.madeByPersonId,
      makerRole: memberships.role,
    })
    .from(publishableKeys)
    .innerJoin(keyValues, ownsValue(storedHash))
    .leftJoin(memberships, and(eq(memberships.organizationId, publishableKeys.organizationId), eq(memberships.personId, publishableKeys.madeByPersonId)))
    .where(and(eq(publishableKeys.kind, 'secret'), isNull(publishableKeys.deletedAt), authenticatesWith(storedHash, now)))
    .limit(1);
  if (!key) return undefined;
  return { ...key, prefix: key.prefix ?? '', scope: key.scope ?? 'gateway' };
}

/** Who the audit log names for a change made with the key: no person, the key by its prefix and name. */
export const actingWith = (key: PresentedSecretKey): Acting => ({
  organizationId: key.organizationId,
  personId: null,
  onBehalfOf: key.madeByPersonId,
  email: `secret key ${key.prefix}… (${key.name})`,
});
