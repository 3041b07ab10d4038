import { useMutation } from '@tanstack/react-query';
import { apiRequest, withRefusalDetail } from '../../../lib/api-client';

// POST /bff/organizations { name } (issue #21): 201; the signed-in person owns the new organisation,
// which becomes their current one.

export const createOrganization = async (name: string): Promise<void> => {
  await apiRequest('/bff/organizations', { method: 'POST', body: { name } });
};

export const useCreateOrganization = () =>
  useMutation({ mutationFn: createOrganization, meta: { errorMessage: withRefusalDetail('Failed to create the organisation') } });
