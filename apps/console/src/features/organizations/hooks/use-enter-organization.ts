import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { paths } from '../../../config/paths';

/**
 * After the session's current organisation changed (switched, created, left): every cached answer
 * was for the previous one, so the whole cache starts over, /bff/me first, and the person lands on
 * the dashboard of the organisation they are now in.
 */
export function useEnterOrganization(): () => void {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return useCallback(() => {
    void navigate(paths.dashboard.getHref());
    // Reset rather than invalidated: no screen shows the previous organisation's data meanwhile.
    void queryClient.resetQueries();
  }, [navigate, queryClient]);
}
