import { checkoutSessionResponseSchema } from '@meterway/contracts';
import { useMutation } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

// POST /bff/auto-top-up/payment-method: no body; opens a setup-mode checkout session that saves a
// card for auto top-up (Stripe's Checkout in setup mode, or the sandbox's card form).

export type SetupSession = z.infer<typeof checkoutSessionResponseSchema>;

export const createPaymentMethodSession = (): Promise<SetupSession> =>
  apiRequest('/bff/auto-top-up/payment-method', { method: 'POST', schema: checkoutSessionResponseSchema });

export const useCreatePaymentMethodSession = () =>
  useMutation({ mutationFn: createPaymentMethodSession, meta: { errorMessage: 'Failed to start saving a card' } });
