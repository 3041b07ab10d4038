import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, withRefusalDetail } from '../../../lib/api-client';
import { membersQueryOptions } from './get-members';

// POST /bff/invitations/{invitationId}/resend (issue #21): mails the link again, with a new expiry.

export const resendInvitation = async (invitationId: string): Promise<void> => {
  await apiRequest(`/bff/invitations/${encodeURIComponent(invitationId)}/resend`, { method: 'POST' });
};

export const useResendInvitation = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: resendInvitation,
    meta: { errorMessage: withRefusalDetail('Failed to resend the invitation') },
    // The expiry moved.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: membersQueryOptions().queryKey }),
  });
};
