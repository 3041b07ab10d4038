import { currentOrganizationInputSchema, type OrganizationMembership, organizationMembershipSchema } from '@meterway/contracts';
import { useMutation } from '@tanstack/react-query';
import { apiRequest, withRefusalDetail } from '../../../lib/api-client';

// PUT /bff/current-organization { organizationId } (issue #21): the session's BFF context moves to
// another of the person's organisations, which the api answers; /bff/me and every list then
// answer for it.

export const switchOrganization = (organizationId: string): Promise<OrganizationMembership> =>
  apiRequest('/bff/current-organization', {
    method: 'PUT',
    body: currentOrganizationInputSchema.parse({ organizationId }),
    schema: organizationMembershipSchema,
  });

export const useSwitchOrganization = () =>
  useMutation({ mutationFn: switchOrganization, meta: { errorMessage: withRefusalDetail('Failed to switch organisation') } });
