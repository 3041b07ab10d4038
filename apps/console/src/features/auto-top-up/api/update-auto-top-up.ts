import { type AutoTopUp, type AutoTopUpInput, autoTopUpSchema } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { autoTopUpQueryKey } from './get-auto-top-up';

// PUT /bff/auto-top-up: answers the settings as saved. Turning it on without a saved card is a 409.

export const updateAutoTopUp = (input: AutoTopUpInput): Promise<AutoTopUp> =>
  apiRequest('/bff/auto-top-up', { method: 'PUT', body: input, schema: autoTopUpSchema });

/** Silent: the form shows the api's refusal beside its Save button rather than in a toast. */
export const useUpdateAutoTopUp = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateAutoTopUp,
    meta: { silent: true },
    onSuccess: (saved) => queryClient.setQueryData(autoTopUpQueryKey, saved),
  });
};
