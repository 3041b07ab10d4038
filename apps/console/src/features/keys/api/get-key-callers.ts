import { type KeyCallers, keyCallersSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/publishable-keys/{publishableKeyId}/callers: the last 24 hours' top client addresses and end users, highest spend first (issue #18).

export const getKeyCallers = (publishableKeyId: string, signal?: AbortSignal): Promise<KeyCallers> =>
  apiRequest(`/bff/publishable-keys/${encodeURIComponent(publishableKeyId)}/callers`, { schema: keyCallersSchema, signal });

export const loadKeyCallersFailed = 'Failed to load callers';

export const keyCallersQueryOptions = (publishableKeyId: string) =>
  queryOptions({
    queryKey: ['publishable-keys', publishableKeyId, 'callers'],
    queryFn: ({ signal }) => getKeyCallers(publishableKeyId, signal),
    meta: { errorMessage: loadKeyCallersFailed },
  });

export const useKeyCallers = (publishableKeyId: string) => useQuery(keyCallersQueryOptions(publishableKeyId));
