import { type KeyBlock, type KeyBlockInput, keyBlockSchema } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { keyBlocksQueryOptions } from './get-key-blocks';
import { keyCallersQueryOptions } from './get-key-callers';

// POST /bff/publishable-keys/{publishableKeyId}/blocks: 201 with the block (an IPv6 address as its /64, or the end user).

export type CreateKeyBlockVariables = { publishableKeyId: string; input: KeyBlockInput };

/** What a block names: a client address or an end user (the `sub` of their token). */
export type BlockKind = 'clientAddress' | 'endUser';

export const blockFailed: Record<BlockKind, string> = { clientAddress: 'Failed to block address', endUser: 'Failed to block end user' };

export const createKeyBlock = ({ publishableKeyId, input }: CreateKeyBlockVariables): Promise<KeyBlock> =>
  apiRequest(`/bff/publishable-keys/${encodeURIComponent(publishableKeyId)}/blocks`, { method: 'POST', body: input, schema: keyBlockSchema });

/**
 * `kind` only picks the failure's toast. The blocks and the callers (their `blocked`) are refetched
 * after a failure too: a 409 may mean the caller was blocked meanwhile.
 */
export const useCreateKeyBlock = (kind: BlockKind = 'clientAddress') => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createKeyBlock,
    meta: { errorMessage: blockFailed[kind] },
    onSettled: (_block, _error, { publishableKeyId }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: keyBlocksQueryOptions(publishableKeyId).queryKey }),
        queryClient.invalidateQueries({ queryKey: keyCallersQueryOptions(publishableKeyId).queryKey }),
      ]),
  });
};
