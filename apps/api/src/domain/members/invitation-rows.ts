import { createHash, randomBytes } from 'node:crypto';
import { type Invitation, invitationLifetimeDays } from '@meterway/contracts';
import type { invitations } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';

export type InvitationRow = typeof invitations.$inferSelect;

export const toInvitation = (row: InvitationRow): Invitation => ({
  invitationId: row.id,
  email: row.email,
  role: row.role,
  expiresAt: row.expiresAt.toISOString(),
});

/** A link's token: 32 random bytes. Only its hash is stored, so the database alone opens no invitation. */
export function newInvitationToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashInvitationToken(token) };
}

export const hashInvitationToken = (token: string) => createHash('sha256').update(token).digest('hex');

export const invitationExpiry = (now: Date) => new Date(now.getTime() + invitationLifetimeDays * 24 * 60 * 60 * 1000);

/** The same answer for another organisation's invitation as for none at all. */
export const noSuchInvitation = (organizationName: string) => new AppError('NotFound', `There is no such invitation in ${organizationName}.`);
