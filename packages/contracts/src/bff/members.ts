import { z } from 'zod';
import { validationMessages as m } from '../common/messages.js';

/**
 * What a member of an organisation may do (issue #21): owners and admins manage members; developers
 * manage keys; billing adds credit, opens invoices and manages alerts; every role sees the balance
 * and the usage. Only an owner makes or unmakes an owner, and an organisation keeps at least one.
 */
export const roles = ['owner', 'admin', 'developer', 'billing'] as const;
export type Role = (typeof roles)[number];
export const roleSchema = z.enum(roles, { error: `role must be one of ${roles.join(', ')}` });

/**
 * Which roles may do what: the api authorises every /bff route by this table and the console shows
 * only what the person's role may use.
 */
export const rolesAllowedTo = {
  /** The balance, usage, chat completions, feedback, and one's own memberships. */
  seeOrganization: roles,
  manageKeys: ['owner', 'admin', 'developer'],
  /** Add credit, open invoices, alert settings. */
  manageCredit: ['owner', 'admin', 'billing'],
  /** Members, invitations and the audit log. */
  manageMembers: ['owner', 'admin'],
} as const satisfies Record<string, readonly Role[]>;
export type Permission = keyof typeof rolesAllowedTo;
export const can = (role: Role, permission: Permission) => (rolesAllowedTo[permission] as readonly Role[]).includes(role);

/** How long an invitation's link works. */
export const invitationLifetimeDays = 7;

/** The spec's e-mail rule (§5: min 3, max 100), the same words as the sign-up form. */
export const memberEmailSchema = z
  .string({ error: m.required })
  .trim()
  .min(1, m.required)
  .min(3, m.minLength(3))
  .max(100, m.maxLength(100))
  .pipe(z.email({ error: 'Enter a valid e-mail address' }))
  .transform((email) => email.toLowerCase());

export const organizationMembershipSchema = z.object({ organizationId: z.string(), organizationName: z.string(), role: roleSchema });
export type OrganizationMembership = z.infer<typeof organizationMembershipSchema>;

export const memberSchema = z.object({ personId: z.string(), email: z.string(), role: roleSchema, joinedAt: z.string() });
export type Member = z.infer<typeof memberSchema>;

export const invitationSchema = z.object({ invitationId: z.string(), email: z.string(), role: roleSchema, expiresAt: z.string() });
export type Invitation = z.infer<typeof invitationSchema>;

/** GET /bff/members. */
export const memberListSchema = z.object({ members: z.array(memberSchema), invitations: z.array(invitationSchema) });
export type MemberList = z.infer<typeof memberListSchema>;

export const memberParamsSchema = z.object({ personId: z.uuid({ error: 'personId must be a UUID' }) });
export const memberRoleInputSchema = z.object({ role: roleSchema });

export const invitationInputSchema = z.object({ email: memberEmailSchema, role: roleSchema });
export type InvitationInput = z.input<typeof invitationInputSchema>;
export const invitationParamsSchema = z.object({ invitationId: z.uuid({ error: 'invitationId must be a UUID' }) });
export const invitationAcceptSchema = z.object({ token: z.string({ error: m.required }).min(1, m.required).max(200, m.maxLength(200)) });

/** PUT /bff/current-organization. */
export const currentOrganizationInputSchema = z.object({ organizationId: z.uuid({ error: 'organizationId must be a UUID' }) });

/** POST /bff/organizations: a new organisation whose owner is the signed-in person. */
export const organizationInputSchema = z.object({
  name: z.string({ error: m.required }).trim().min(1, m.required).min(3, m.minLength(3)).max(100, m.maxLength(100)),
});
