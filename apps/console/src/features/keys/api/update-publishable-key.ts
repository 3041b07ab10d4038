import type { PublishableKeyInput } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { publishableKeysQueryOptions } from './get-publishable-keys';

// PUT /bff/publishable-keys/{publishableKeyId} (spec §7), the same JSON as create.

export type UpdatePublishableKeyVariables = { id: string; input: PublishableKeyInput };

/** The answer (204, or 200 with the key) is not read: the list is refetched instead. */
export const updatePublishableKey = async ({ id, input }: UpdatePublishableKeyVariables): Promise<void> => {
  await apiRequest(`/bff/publishable-keys/${encodeURIComponent(id)}`, { method: 'PUT', body: input });
};

export const useUpdatePublishableKey = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updatePublishableKey,
    meta: { errorMessage: 'Failed to update publishable key' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: publishableKeysQueryOptions().queryKey }),
  });
};
