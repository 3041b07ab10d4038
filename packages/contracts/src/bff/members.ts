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
  /** Webhook endpoints and their deliveries. */
  manageWebhooks: ['owner', 'admin', 'developer'],
  /** Add credit, open invoices, alert settings. */
  manageCredit: ['owner', 'admin', 'billing'],
  /** Members, invitations and the audit log. */
  manageMembers: ['owner', 'admin'],
} as const satisfies Record<string, readonly Role[]>;
export type Permission = keyof typeof rolesAllowedTo;
export const can = (role: Role, permission: Permission) => (rolesAllowedTo[permission] as readonly Role[]).includes(role);

/**
 * What an admin-scope secret key does through the developer API (the balance and usage, the
 * publishable keys, the credit history): only a role allowed all of it may make or roll one, so a
 * key never does more than the person who made it (issue #53).
 */
export const adminKeyPermissions = ['seeOrganization', 'manageKeys', 'manageCredit'] as const satisfies readonly Permission[];
export const canMakeAdminKey = (role: Role) => adminKeyPermissions.every((permission) => can(role, permission));

/** How long an invitation's link works. */
export const invitationLifetimeDays = 7;

/** The spec's e-mail rule (§5: min 3, max 100), the same words as the sign-up form. */
export const memberEmailSchema = z
  .string({ error: m.required })
  .trim()
  // abort: an empty field is only 'required', not also too short.
  .min(1, { error: m.required, abort: true })
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

/** A live key a member was last shown the value of (made or rolled): what removing them leaves behind. */
export const madeKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['publishable', 'secret']),
  scope: z.enum(['gateway', 'admin']).nullable(),
});
export type MadeKey = z.infer<typeof madeKeySchema>;

/** A member as GET /bff/members lists them: with the live keys they made, oldest first. */
export const listedMemberSchema = memberSchema.extend({ keysMade: z.array(madeKeySchema) });
export type ListedMember = z.infer<typeof listedMemberSchema>;

/** GET /bff/members. */
export const memberListSchema = z.object({ members: z.array(listedMemberSchema), invitations: z.array(invitationSchema) });
export type MemberList = z.infer<typeof memberListSchema>;

export const memberParamsSchema = z.object({ personId: z.uuid({ error: 'personId must be a UUID' }) });

/**
 * DELETE /bff/members/{personId}?keys=delete also deletes the live keys the member made (the
 * default, keep, leaves them working: they are listed with their maker, marked as gone).
 */
export const memberRemovalQuerySchema = z.object({ keys: z.enum(['keep', 'delete'], { error: 'keys must be keep or delete' }).default('keep') });
export const memberRoleInputSchema = z.object({ role: roleSchema });

/**
 * POST /bff/invitations answers 201 with the invitation once it is stored; when its mail could not be sent it answers 503
 * with the invitation kept (listed as pending), so POST /bff/invitations/{invitationId}/resend sends it again.
 */
export const invitationInputSchema = z.object({ email: memberEmailSchema, role: roleSchema });
export type InvitationInput = z.input<typeof invitationInputSchema>;
export const invitationParamsSchema = z.object({ invitationId: z.uuid({ error: 'invitationId must be a UUID' }) });

/**
 * POST /bff/invitations/accept: the token of the mailed link `CONSOLE_URL/invitations/{token}`, `<organization id>.<secret>`.
 * It answers the organisation joined (organizationMembershipSchema), now the current one; an unknown or expired token, or one
 * of another shape, is 404, a person signed in with another address than the invited one 403 (naming that address). A
 * person already a member gets success with the role they have (the invitation is used up, it changes no role).
 */
export const invitationAcceptSchema = z.object({ token: z.string({ error: m.required }).min(1, m.required).max(200, m.maxLength(200)) });

/** PUT /bff/current-organization; answers the organisation switched to (organizationMembershipSchema). 404 when not a member. */
export const currentOrganizationInputSchema = z.object({ organizationId: z.uuid({ error: 'organizationId must be a UUID' }) });

/**
 * Whether a name holds a web address (a scheme, www., a domain) or an e-mail address. An
 * organisation's name is mailed with every invitation, so it must not turn Meterway's mail into a
 * relay for someone's link ("Billing: your card failed, update it at https://evil.example").
 */
const holdsAnAddress = (name: string): boolean =>
  /[^\s@]+@[^\s@]+\.[^\s@]+/.test(name) || /[a-z][a-z0-9+.-]*:\/\//i.test(name) || /\bwww\./i.test(name) || /\b[a-z0-9-]+\.[a-z]{2,}(?:\/|\b)/i.test(name);

/** POST /bff/organizations: a new organisation whose owner is the signed-in person. */
export const organizationInputSchema = z.object({
  name: z
    .string({ error: m.required })
    .trim()
    .min(1, { error: m.required, abort: true })
    .min(3, m.minLength(3))
    .max(100, m.maxLength(100))
    .refine((name) => !holdsAnAddress(name), 'An organisation name may not contain a web address or an e-mail address'),
});

/**
 * POST /bff/organizations/{organizationId}/leave: the signed-in person leaves that organisation (any of theirs, current or
 * not; 404 when not a member, 409 for its last owner). Answers the current organisation afterwards: unchanged, or when the
 * person left the current one, the oldest they still belong to, or a new one of their own when none is left.
 */
export const organizationParamsSchema = z.object({ organizationId: z.uuid({ error: 'organizationId must be a UUID' }) });
