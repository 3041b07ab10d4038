import { customerPortalResponseSchema } from '@meterway/contracts';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// POST /bff/stripe/customer-portal-session (spec §7): no body; answers the portal's URL.

export const createCustomerPortalSession = (): Promise<{ url: string }> =>
  apiRequest('/bff/stripe/customer-portal-session', { method: 'POST', schema: customerPortalResponseSchema });

export const useCreateCustomerPortalSession = () => useMutation({ mutationFn: createCustomerPortalSession });
