import type { z } from 'zod';
import { meSchema } from '../bff/me.js';

/**
 * GET /v1/organization/balance: the organisation's credit as /bff/me states it (dollars): the whole
 * balance, what is owed, the promotional part drawn on first and when its soonest grant expires.
 */
export const organizationBalanceSchema = meSchema.pick({
  remainingSpendAmount: true,
  owedAmount: true,
  promotionalCreditAmount: true,
  nextCreditExpiry: true,
});

export type OrganizationBalance = z.infer<typeof organizationBalanceSchema>;
