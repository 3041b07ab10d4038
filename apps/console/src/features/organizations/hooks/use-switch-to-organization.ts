import { useCallback } from 'react';
import { notifySuccess } from '../../../lib/notify';
import { useSwitchOrganization } from '../api/switch-organization';
import { useEnterOrganization } from './use-enter-organization';

/** The avatar menu's switch: PUT the current organisation, then start over on its dashboard. */
export function useSwitchToOrganization(): (organizationId: string) => void {
  const { mutate } = useSwitchOrganization();
  const enterOrganization = useEnterOrganization();
  return useCallback(
    (organizationId: string) =>
      mutate(organizationId, {
        onSuccess: (membership) => {
          notifySuccess(`Switched to ${membership.organizationName}`);
          enterOrganization(membership.organizationId);
        },
      }),
    [mutate, enterOrganization],
  );
}
