import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { AuditAction, AuditChanges } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { auditEntries } from '../../db/schema/index.js';

/** Who an audit entry names: a signed-in person, or the system (a payment provider's event, the operator CLI). */
export type Actor = { personId: string | null; email: string };
export const systemActor: Actor = { personId: null, email: 'system' };
export const actorOf = (viewer: Actor): Actor => ({ personId: viewer.personId, email: viewer.email });

/**
 * Someone acting in an organisation: a signed-in viewer (a Viewer is one), or the system. A key
 * acting for a person (the developer API's admin key) names them `onBehalfOf`: what it makes is theirs.
 */
export type Acting = Actor & { organizationId: string; onBehalfOf?: string | null };

/** Records what happened; call it with the transaction that makes the change, so both commit or neither. */
export async function recordAudit(
  tx: Database,
  entry: { organizationId: string; actor: Actor; action: AuditAction; target: string; changes?: AuditChanges },
): Promise<void> {
  await tx.insert(auditEntries).values({
    id: randomUUID(),
    organizationId: entry.organizationId,
    actorPersonId: entry.actor.personId,
    actorEmail: entry.actor.email,
    action: entry.action,
    target: entry.target,
    changes: entry.changes ?? {},
  });
}

/** Values that had no before (a creation's settings, a reason): each as `{ to }`. */
export const initialValues = (values: Record<string, unknown>): AuditChanges =>
  Object.fromEntries(Object.entries(values).map(([field, to]) => [field, { to }]));

/** Only the fields whose values differ, each before → after. */
export function changesBetween<T extends Record<string, unknown>>(before: T, after: T): AuditChanges {
  const changes: AuditChanges = {};
  for (const field of Object.keys(after)) {
    if (!isDeepStrictEqual(before[field], after[field])) changes[field] = { from: before[field], to: after[field] };
  }
  return changes;
}
