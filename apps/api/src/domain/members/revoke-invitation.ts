import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import { invitations } from '../../db/schema/index.js';
import { actorOf, recordAudit } from '../audit/record-audit.js';
import type { Viewer } from '../people/ensure-person.js';
import { noSuchInvitation } from './invitation-rows.js';

/** Deletes a pending invitation of the current organisation: its link stops working at once. */
export async function revokeInvitation(db: Database, viewer: Viewer, invitationId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [revoked] = await tx
      .delete(invitations)
      .where(and(eq(invitations.id, invitationId), eq(invitations.organizationId, viewer.organizationId)))
      .returning({ email: invitations.email, role: invitations.role });
    if (!revoked) throw noSuchInvitation(viewer.organizationName);
    await recordAudit(tx, {
      organizationId: viewer.organizationId,
      actor: actorOf(viewer),
      action: 'member.invitation_revoked',
      target: revoked.email,
      changes: { role: { from: revoked.role } },
    });
  });
}
