import { type KeyBlock, keyBlockListSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/publishable-keys/{publishableKeyId}/blocks: the client addresses and end users a key refuses (issue #18).

export const getKeyBlocks = async (publishableKeyId: string, signal?: AbortSignal): Promise<KeyBlock[]> =>
  (await apiRequest(`/bff/publishable-keys/${encodeURIComponent(publishableKeyId)}/blocks`, { schema: keyBlockListSchema, signal })).blocks;

export const loadKeyBlocksFailed = 'Failed to load blocked addresses';

export const keyBlocksQueryOptions = (publishableKeyId: string) =>
  queryOptions({
    queryKey: ['publishable-keys', publishableKeyId, 'blocks'],
    queryFn: ({ signal }) => getKeyBlocks(publishableKeyId, signal),
    meta: { errorMessage: loadKeyBlocksFailed },
  });

export const useKeyBlocks = (publishableKeyId: string) => useQuery(keyBlocksQueryOptions(publishableKeyId));
