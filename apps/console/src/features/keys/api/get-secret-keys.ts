import { type SecretKey, secretKeyListSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/secret-keys (issue #23): the organisation's secret keys, without their values.

export const getSecretKeys = async (signal?: AbortSignal): Promise<SecretKey[]> =>
  (await apiRequest('/bff/secret-keys', { schema: secretKeyListSchema, signal })).secretKeys;

export const loadSecretKeysFailed = 'Failed to load secret keys';

export const secretKeysQueryOptions = () =>
  queryOptions({
    queryKey: ['secret-keys'],
    queryFn: ({ signal }) => getSecretKeys(signal),
    meta: { errorMessage: loadSecretKeysFailed },
  });

/** `enabled: false` for a role that may not list the keys: nothing is asked. */
export const useSecretKeys = ({ enabled = true }: { enabled?: boolean } = {}) => useQuery({ ...secretKeysQueryOptions(), enabled });
