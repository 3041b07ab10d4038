import { can, type Me, meSchema, type Permission } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, apiRequest, isOrganizationLeft, refusalDetail } from './api-client';
import { notifyError } from './notify';
import { showOrganizationInTab, tabOrganization } from './tab-organization';

// GET /bff/me (spec §7): the current user, read by the guards, the shell, the balance card and the
// payment status. Lives in lib/ because several features read it.

/**
 * The current user, in the organisation this tab shows; a new tab takes the person's current one
 * as its own. A tab whose organisation the person left is told why (the api's words) and moves to
 * their current one.
 */
export async function getMe(signal?: AbortSignal): Promise<Me> {
  try {
    const me = await apiRequest('/bff/me', { schema: meSchema, signal });
    if (!tabOrganization()) showOrganizationInTab(me.organizationId);
    return me;
  } catch (error) {
    if (!(error instanceof ApiError) || !isOrganizationLeft(error.body)) throw error;
    notifyError(error, refusalDetail(error));
    return getMe(signal);
  }
}

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
