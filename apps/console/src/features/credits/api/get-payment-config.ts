import { paymentConfigSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/config (public): which payment provider takes the card, and Stripe's publishable key.

export type PaymentConfig = z.infer<typeof paymentConfigSchema>;

export const getPaymentConfig = (signal?: AbortSignal): Promise<PaymentConfig> => apiRequest('/bff/config', { schema: paymentConfigSchema, signal });

export const paymentConfigQueryKey = ['payment-config'] as const;

/** The provider is chosen when the api boots, so one answer lasts the page's life. */
export const paymentConfigQueryOptions = () =>
  queryOptions({ queryKey: paymentConfigQueryKey, queryFn: ({ signal }) => getPaymentConfig(signal), staleTime: Infinity });

export const usePaymentConfig = () => useQuery(paymentConfigQueryOptions());
