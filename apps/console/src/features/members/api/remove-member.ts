import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, withRefusalDetail } from '../../../lib/api-client';

// DELETE /bff/members/{personId}[?keys=delete] (issues #21, #53): 204.

export type MemberRemoval = { personId: string; deleteKeys: boolean };

export const removeMember = async ({ personId, deleteKeys }: MemberRemoval): Promise<void> => {
  await apiRequest(`/bff/members/${encodeURIComponent(personId)}${deleteKeys ? '?keys=delete' : ''}`, { method: 'DELETE' });
};

export const useRemoveMember = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: removeMember,
    meta: { errorMessage: withRefusalDetail('Failed to remove the member') },
    // Not only the members: the key lists name the removed maker, or lost the keys deleted with them.
    onSuccess: () => queryClient.invalidateQueries(),
  });
};
