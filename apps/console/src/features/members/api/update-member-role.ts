import type { Role } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, withRefusalDetail } from '../../../lib/api-client';
import { membersQueryOptions } from './get-members';

// PUT /bff/members/{personId} { role } (issue #21). The api refuses to leave an organisation without an owner (409).

export const updateMemberRole = async ({ personId, role }: { personId: string; role: Role }): Promise<void> => {
  await apiRequest(`/bff/members/${encodeURIComponent(personId)}`, { method: 'PUT', body: { role } });
};

export const useUpdateMemberRole = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateMemberRole,
    meta: { errorMessage: withRefusalDetail('Failed to change the role') },
    // Also on a refusal: the Select shows the role the api kept.
    onSettled: () => queryClient.invalidateQueries({ queryKey: membersQueryOptions().queryKey }),
  });
};
