import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { keyBlocksQueryOptions } from './get-key-blocks';

// DELETE /bff/publishable-keys/{publishableKeyId}/blocks/{blockId}: 204; the address may call again.

export type DeleteKeyBlockVariables = { publishableKeyId: string; blockId: string };

export const deleteKeyBlock = async ({ publishableKeyId, blockId }: DeleteKeyBlockVariables): Promise<void> => {
  await apiRequest(`/bff/publishable-keys/${encodeURIComponent(publishableKeyId)}/blocks/${encodeURIComponent(blockId)}`, { method: 'DELETE' });
};

export const useDeleteKeyBlock = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteKeyBlock,
    meta: { errorMessage: 'Failed to unblock address' },
    onSettled: (_result, _error, { publishableKeyId }) => queryClient.invalidateQueries({ queryKey: keyBlocksQueryOptions(publishableKeyId).queryKey }),
  });
};
