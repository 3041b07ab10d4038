import { z } from 'zod';
import { listQuerySchema, pageOf } from '../common/pagination.js';

/**
 * What the audit log records (issue #21), each written in the transaction of the change it records.
 * `target` names what was acted on (a key's name, a member's e-mail, an amount); `changes` holds
 * the fields that changed, each `{ from, to }` (absent where nothing had a before, as on creation).
 */
export const auditActions = [
  'key.created',
  'key.updated',
  'key.rolled',
  'key.deleted',
  'key.blocked_caller',
  'key.unblocked_caller',
  'member.invited',
  'member.invitation_resent',
  'member.invitation_revoked',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.left',
  'organization.created',
  'alerts.updated',
  'credit.added',
  'credit.granted',
  'credit.refunded',
  'credit.disputed',
  'credit.expired',
  'auto_top_up.updated',
  'auto_top_up.card_saved',
  'auto_top_up.disabled',
  'webhook_endpoint.created',
  'webhook_endpoint.deleted',
] as const;
export type AuditAction = (typeof auditActions)[number];

export const auditChangeSchema = z.object({ from: z.unknown().optional(), to: z.unknown().optional() });
export type AuditChanges = Record<string, z.infer<typeof auditChangeSchema>>;

export const auditEntrySchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  /** Who did it; 'system' for what a payment provider or the operator did. */
  actorEmail: z.string(),
  action: z.enum(auditActions),
  target: z.string(),
  changes: z.record(z.string(), auditChangeSchema),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditLogQuerySchema = listQuerySchema.extend({
  actorEmail: z.string().trim().max(100, 'actorEmail must be at most 100 characters').optional(),
  action: z.enum(auditActions, { error: `action must be one of ${auditActions.join(', ')}` }).optional(),
});
export type AuditLogQuery = z.infer<typeof auditLogQuerySchema>;
export const auditLogPageSchema = pageOf(auditEntrySchema);
