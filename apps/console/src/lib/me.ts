import { can, type Me, meSchema, type Permission } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from './api-client';

// GET /bff/me (spec §7): the current user, read by the guards, the shell, the balance card and the
// payment status. Lives in lib/ because several features read it.

export const getMe = (signal?: AbortSignal): Promise<Me> => apiRequest('/bff/me', { schema: meSchema, signal });

export const meQueryKey = ['me'] as const;

/** Silent: a failed /bff/me is a redirect (to login or verify-email), not a toast. */
export const meQueryOptions = () => queryOptions({ queryKey: meQueryKey, queryFn: ({ signal }) => getMe(signal), meta: { silent: true } });

export const useMe = (options: { refetchInterval?: number } = {}) => useQuery({ ...meQueryOptions(), ...options });

/**
 * Whether the signed-in person's role in the current organisation allows `permission` (issue #21),
 * by the contract's table the api authorises with; false until /bff/me has answered.
 */
export const useCan = (permission: Permission): boolean => {
  const { data } = useMe();
  return data ? can(data.role, permission) : false;
};
