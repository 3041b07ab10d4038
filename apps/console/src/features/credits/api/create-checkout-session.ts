import { type checkoutSessionRequestSchema, checkoutSessionResponseSchema } from '@meterway/contracts';
import { mutationOptions, useMutation } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

// POST /bff/stripe/checkout-session {amount} (spec §7): opens a checkout session for the top-up.

export type CheckoutSessionRequest = z.infer<typeof checkoutSessionRequestSchema>;
export type CheckoutSessionStarted = z.infer<typeof checkoutSessionResponseSchema>;

export const createCheckoutSession = (input: CheckoutSessionRequest): Promise<CheckoutSessionStarted> =>
  apiRequest('/bff/stripe/checkout-session', { method: 'POST', body: input, schema: checkoutSessionResponseSchema });

export const createCheckoutSessionMutationOptions = () => mutationOptions({ mutationFn: createCheckoutSession });

export const useCreateCheckoutSession = () => useMutation(createCheckoutSessionMutationOptions());
