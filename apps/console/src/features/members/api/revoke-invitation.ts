import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, withRefusalDetail } from '../../../lib/api-client';
import { membersQueryOptions } from './get-members';

// DELETE /bff/invitations/{invitationId} (issue #21): 204; the mailed link stops working.

export const revokeInvitation = async (invitationId: string): Promise<void> => {
  await apiRequest(`/bff/invitations/${encodeURIComponent(invitationId)}`, { method: 'DELETE' });
};

export const useRevokeInvitation = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeInvitation,
    meta: { errorMessage: withRefusalDetail('Failed to revoke the invitation') },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: membersQueryOptions().queryKey }),
  });
};
