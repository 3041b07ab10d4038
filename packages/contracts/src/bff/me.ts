import { z } from 'zod';
import { organizationMembershipSchema, roleSchema } from './members.js';

export const checkoutStatusSchema = z.enum(['IN_PROGRESS', 'SUCCEEDED', 'FAILED', 'EXPIRED']);

/** GET /bff/me (spec §3 current user). */
export const meSchema = z.object({
  email: z.string(),
  organizationName: z.string(),
  systemAdmin: z.boolean(),
  organizationId: z.string(),
  /** Dollars. */
  remainingSpendAmount: z.number(),
  /**
   * Dollars a refund or dispute took back that the credit could not pay; 0 when nothing is owed.
   * While above 0 the organisation's keys are refused; the next top-ups pay it first.
   */
  owedAmount: z.number(),
  /**
   * Dollars of the balance that promotional grants gave (issue #22), drawn on first; the rest is paid
   * credit. remainingSpendAmount stays the whole balance.
   */
  promotionalCreditAmount: z.number(),
  /** When the soonest grant with credit left expires (ISO 8601); null without one. */
  nextCreditExpiry: z.string().nullable(),
  organizationCheckoutSessions: z.array(z.object({ checkoutSessionId: z.string(), status: checkoutStatusSchema })),
  /** The person's role in the current organisation (issue #21). */
  role: roleSchema,
  /** Every organisation the person belongs to, the current one included. */
  organizations: z.array(organizationMembershipSchema),
});

export type Me = z.infer<typeof meSchema>;

/** 401 when the signed-in identity has not verified its address yet (spec §8). */
export const emailNotVerifiedSchema = z.object({ code: z.literal('EmailNotVerified'), email: z.string() });
