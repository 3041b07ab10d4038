import { type PublishableKey, type PublishableKeyInput, publishableKeySchema } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { publishableKeysQueryOptions } from './get-publishable-keys';

// POST /bff/publishable-keys (spec §7): 201 with the new key, its value included.

export const createPublishableKey = (input: PublishableKeyInput): Promise<PublishableKey> =>
  apiRequest('/bff/publishable-keys', { method: 'POST', body: input, schema: publishableKeySchema });

export const useCreatePublishableKey = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createPublishableKey,
    meta: { errorMessage: 'Failed to create publishable key' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: publishableKeysQueryOptions().queryKey }),
  });
};
