import { type PublishableKey, publishableKeyListSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/publishable-keys (spec §7).

export const getPublishableKeys = async (signal?: AbortSignal): Promise<PublishableKey[]> =>
  (await apiRequest('/bff/publishable-keys', { schema: publishableKeyListSchema, signal })).publishableKeys;

export const loadPublishableKeysFailed = 'Failed to load publishable keys';

export const publishableKeysQueryOptions = () =>
  queryOptions({
    queryKey: ['publishable-keys'],
    queryFn: ({ signal }) => getPublishableKeys(signal),
    meta: { errorMessage: loadPublishableKeysFailed },
  });

/** `enabled: false` for a role that may not list the keys (issue #21): nothing is asked. */
export const usePublishableKeys = ({ enabled = true }: { enabled?: boolean } = {}) => useQuery({ ...publishableKeysQueryOptions(), enabled });
