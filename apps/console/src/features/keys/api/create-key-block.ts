import { type KeyBlock, type keyBlockInputSchema, keyBlockSchema } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod/mini';
import { apiRequest } from '../../../lib/api-client';
import { keyBlocksQueryOptions } from './get-key-blocks';

// POST /bff/publishable-keys/{publishableKeyId}/blocks: 201 with the block (an IPv6 address as its /64).

export type CreateKeyBlockVariables = { publishableKeyId: string; input: z.input<typeof keyBlockInputSchema> };

export const createKeyBlock = ({ publishableKeyId, input }: CreateKeyBlockVariables): Promise<KeyBlock> =>
  apiRequest(`/bff/publishable-keys/${encodeURIComponent(publishableKeyId)}/blocks`, { method: 'POST', body: input, schema: keyBlockSchema });

export const useCreateKeyBlock = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createKeyBlock,
    meta: { errorMessage: 'Failed to block address' },
    onSuccess: (_block, { publishableKeyId }) => queryClient.invalidateQueries({ queryKey: keyBlocksQueryOptions(publishableKeyId).queryKey }),
  });
};
