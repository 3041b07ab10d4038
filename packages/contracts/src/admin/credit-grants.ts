import { z } from 'zod';

/** The most one promotional grant gives, in dollars (the operator CLI's limit too). */
export const maxCreditGrantAmount = 1_000_000;

/**
 * A system admin's promotional grant to a person's current organisation (issue #22):
 * `POST /admin/persons/{personId}/credit-grants`. `expiresOn` is the last day the credit can be
 * used: it expires at the end of that day in UTC (00:00 UTC the day after), as the CLI's
 * `--expires` does.
 */
export const creditGrantInputSchema = z.object({
  amount: z
    .number({ error: 'amount must be a number' })
    .positive('amount must be more than $0')
    .max(maxCreditGrantAmount, `amount must be at most $${maxCreditGrantAmount.toLocaleString('en-US')}`)
    .multipleOf(0.01, 'amount must be whole cents'),
  note: z.string().trim().min(1, 'note is required (e.g. trial, support)').max(500, 'note must be at most 500 characters'),
  expiresOn: z.iso.date({ error: 'expiresOn must be a date, YYYY-MM-DD' }),
});
export type CreditGrantInput = z.infer<typeof creditGrantInputSchema>;

export const creditGrantSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  organizationName: z.string(),
  amount: z.number(),
  note: z.string(),
  /** When what is left of it expires (ISO 8601). */
  expiresAt: z.string(),
  /** The organisation's balance in dollars after the grant. */
  balance: z.number(),
});
export type CreditGrant = z.infer<typeof creditGrantSchema>;

const dayMs = 24 * 60 * 60 * 1000;

/** When a grant given until `expiresOn` (YYYY-MM-DD) expires: 00:00 UTC the day after. */
export const grantExpiryOf = (expiresOn: string): Date => new Date(Date.parse(`${expiresOn}T00:00:00.000Z`) + dayMs);

/** The last day (YYYY-MM-DD, UTC) a grant expiring at `expiresAt` can be used: the inverse of grantExpiryOf. */
export const lastGrantDayOf = (expiresAt: string | Date): string => new Date(new Date(expiresAt).getTime() - 1).toISOString().slice(0, 10);
