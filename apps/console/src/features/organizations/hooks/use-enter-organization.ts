import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { paths } from '../../../config/paths';
import { showOrganizationInTab } from '../../../lib/tab-organization';

/**
 * After this tab moved to another organisation (switched, created, left): the tab shows it from now
 * on (tab-organization.ts; other tabs keep theirs), every cached answer was for the previous one,
 * so the whole cache starts over, /bff/me first, and the person lands on its dashboard.
 */
export function useEnterOrganization(): (organizationId: string) => void {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return useCallback(
    (organizationId: string) => {
      showOrganizationInTab(organizationId);
      void navigate(paths.dashboard.getHref());
      // Reset rather than invalidated: no screen shows the previous organisation's data meanwhile.
      void queryClient.resetQueries();
    },
    [navigate, queryClient],
  );
}
