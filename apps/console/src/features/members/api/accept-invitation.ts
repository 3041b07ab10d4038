import { type OrganizationMembership, organizationMembershipSchema } from '@meterway/contracts';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// POST /bff/invitations/accept { token } (issue #21): the signed-in person joins the organisation
// that invited them, which becomes their current one, and the api answers it. An unknown, expired
// or revoked token is 404; an invitation for another address 403.

export const acceptInvitation = (token: string): Promise<OrganizationMembership> =>
  apiRequest('/bff/invitations/accept', { method: 'POST', body: { token }, schema: organizationMembershipSchema });

/** Silent: the invitation screen says why it failed in place of a toast. */
export const useAcceptInvitation = () => useMutation({ mutationFn: acceptInvitation, meta: { silent: true } });
