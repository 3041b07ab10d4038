import { type CheckoutOutcome, checkoutOutcomeSchema } from '@meterway/contracts';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/checkout-sessions/:checkoutSessionId (the roles that manage credit): what a paid top-up
// came to, the part of it that paid what the organisation owed included.

export const getCheckoutOutcome = (checkoutSessionId: string, signal?: AbortSignal): Promise<CheckoutOutcome> =>
  apiRequest(`/bff/checkout-sessions/${encodeURIComponent(checkoutSessionId)}`, { schema: checkoutOutcomeSchema, signal });

/** Read once the payment succeeded: what it paid does not change after. */
export const useCheckoutOutcome = (checkoutSessionId: string) =>
  useQuery({ queryKey: ['checkout-outcome', checkoutSessionId], queryFn: ({ signal }) => getCheckoutOutcome(checkoutSessionId, signal), staleTime: Infinity });
