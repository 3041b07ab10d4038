import { type OrganizationMembership, organizationMembershipSchema } from '@meterway/contracts';
import { useMutation } from '@tanstack/react-query';
import { apiRequest, withRefusalDetail } from '../../../lib/api-client';

// POST /bff/organizations { name } (issue #21): 201 with the new organisation, which the signed-in
// person owns and which becomes their current one.

export const createOrganization = (name: string): Promise<OrganizationMembership> =>
  apiRequest('/bff/organizations', { method: 'POST', body: { name }, schema: organizationMembershipSchema });

export const useCreateOrganization = () =>
  useMutation({ mutationFn: createOrganization, meta: { errorMessage: withRefusalDetail('Failed to create the organisation') } });
