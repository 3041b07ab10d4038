import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import type { BlockKind } from './create-key-block';
import { keyBlocksQueryOptions } from './get-key-blocks';
import { keyCallersQueryOptions } from './get-key-callers';

// DELETE /bff/publishable-keys/{publishableKeyId}/blocks/{blockId}: 204; the address or end user may call again.

export type DeleteKeyBlockVariables = { publishableKeyId: string; blockId: string };

const unblockFailed: Record<BlockKind, string> = { clientAddress: 'Failed to unblock address', endUser: 'Failed to unblock end user' };

export const deleteKeyBlock = async ({ publishableKeyId, blockId }: DeleteKeyBlockVariables): Promise<void> => {
  await apiRequest(`/bff/publishable-keys/${encodeURIComponent(publishableKeyId)}/blocks/${encodeURIComponent(blockId)}`, { method: 'DELETE' });
};

/** `kind` only picks the failure's toast; the blocks and the callers (their `blocked`) are refetched. */
export const useDeleteKeyBlock = (kind: BlockKind = 'clientAddress') => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteKeyBlock,
    meta: { errorMessage: unblockFailed[kind] },
    onSettled: (_result, _error, { publishableKeyId }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: keyBlocksQueryOptions(publishableKeyId).queryKey }),
        queryClient.invalidateQueries({ queryKey: keyCallersQueryOptions(publishableKeyId).queryKey }),
      ]),
  });
};
