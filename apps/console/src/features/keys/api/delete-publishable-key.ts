import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { publishableKeysQueryOptions } from './get-publishable-keys';

// DELETE /bff/publishable-keys/{publishableKeyId} (spec §7): 204.

export const deletePublishableKey = async (id: string): Promise<void> => {
  await apiRequest(`/bff/publishable-keys/${encodeURIComponent(id)}`, { method: 'DELETE' });
};

export const useDeletePublishableKey = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deletePublishableKey,
    meta: { errorMessage: 'Failed to delete publishable key' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: publishableKeysQueryOptions().queryKey }),
  });
};
