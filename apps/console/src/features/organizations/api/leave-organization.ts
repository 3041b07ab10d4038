import { type OrganizationMembership, organizationMembershipSchema } from '@meterway/contracts';
import { useMutation } from '@tanstack/react-query';
import { apiRequest, withRefusalDetail } from '../../../lib/api-client';

// POST /bff/organizations/{organizationId}/leave (issue #21): the person stops being a member. The
// api answers the current organisation afterwards (another of theirs, or a new one of their own
// when none is left); the last owner cannot leave (409).

export const leaveOrganization = (organizationId: string): Promise<OrganizationMembership> =>
  apiRequest(`/bff/organizations/${encodeURIComponent(organizationId)}/leave`, { method: 'POST', schema: organizationMembershipSchema });

export const useLeaveOrganization = () =>
  useMutation({ mutationFn: leaveOrganization, meta: { errorMessage: withRefusalDetail('Failed to leave the organisation') } });
