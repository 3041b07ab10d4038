import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, withRefusalDetail } from '../../../lib/api-client';
import { membersQueryOptions } from './get-members';

// DELETE /bff/members/{personId} (issue #21): 204.

export const removeMember = async (personId: string): Promise<void> => {
  await apiRequest(`/bff/members/${encodeURIComponent(personId)}`, { method: 'DELETE' });
};

export const useRemoveMember = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: removeMember,
    meta: { errorMessage: withRefusalDetail('Failed to remove the member') },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: membersQueryOptions().queryKey }),
  });
};
