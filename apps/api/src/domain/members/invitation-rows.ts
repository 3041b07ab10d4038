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

const hashInvitationToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * A link's token: `<organization id>.<32 random bytes>`. The organisation says where to look (the
 * invitation is found by (organization_id, token_hash), as Citus needs it); the random part is what
 * opens it. Only the token's hash is stored, so the database alone opens no invitation.
 */
export function newInvitationToken(organizationId: string): { token: string; tokenHash: string } {
  const token = `${organizationId}.${randomBytes(32).toString('base64url')}`;
  return { token, tokenHash: hashInvitationToken(token) };
}

/** `<organization id>.<base64url>`, the id in the lower case our tokens are made with. */
const tokenShape = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.[A-Za-z0-9_-]+$/;

/**
 * The organisation a link's token names, and the hash it is stored under. A token of another shape
 * (mailed before tokens named their organisation, mangled, made up) is undefined: it opens nothing,
 * as an unknown token does, and no made-up id reaches Postgres as a uuid (which would be a 500).
 */
export function parseInvitationToken(token: string): { organizationId: string; tokenHash: string } | undefined {
  const organizationId = tokenShape.exec(token)?.[1];
  return organizationId ? { organizationId, tokenHash: hashInvitationToken(token) } : undefined;
}

export const invitationExpiry = (now: Date) => new Date(now.getTime() + invitationLifetimeDays * 24 * 60 * 60 * 1000);

/** The same answer for another organisation's invitation as for none at all. */
export const noSuchInvitation = (organizationName: string) => new AppError('NotFound', `There is no such invitation in ${organizationName}.`);
