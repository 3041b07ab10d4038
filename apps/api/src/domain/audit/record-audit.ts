import { randomUUID } from 'node:crypto';
import type { AuditAction, AuditChanges } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { auditEntries } from '../../db/schema/index.js';

/** Who an audit entry names: a signed-in person, or the system (a payment provider's event, the operator CLI). */
export type Actor = { personId: string | null; email: string };
export const systemActor: Actor = { personId: null, email: 'system' };
export const actorOf = (viewer: { personId: string; email: string }): Actor => ({ personId: viewer.personId, email: viewer.email });

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
