import { invitationInputSchema, type InvitationInput } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, withRefusalDetail } from '../../../lib/api-client';
import { membersQueryOptions } from './get-members';

// POST /bff/invitations { email, role } (issue #21): 201; the invitee is mailed a link. An address
// already a member, or already invited, is refused (409); a mail that could not be sent is 503
// with the invitation kept, pending, for Resend.

export const createInvitation = async (input: InvitationInput): Promise<void> => {
  await apiRequest('/bff/invitations', { method: 'POST', body: invitationInputSchema.parse(input) });
};

export const useCreateInvitation = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createInvitation,
    meta: { errorMessage: withRefusalDetail('Failed to send the invitation') },
    onSettled: () => queryClient.invalidateQueries({ queryKey: membersQueryOptions().queryKey }),
  });
};
