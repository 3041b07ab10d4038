import type { PublishableKeyDeletion } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { publishableKeysQueryOptions } from './get-publishable-keys';

// DELETE /bff/publishable-keys/{publishableKeyId} (spec §7): 204. A reason given goes in the body
// and into the audit log's key.deleted entry (issue #21); without one, no body is sent.

export const deletePublishableKey = async ({ id, reason }: { id: string; reason?: string }): Promise<void> => {
  const body: PublishableKeyDeletion = reason ? { reason } : undefined;
  await apiRequest(`/bff/publishable-keys/${encodeURIComponent(id)}`, { method: 'DELETE', body });
};

export const useDeletePublishableKey = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deletePublishableKey,
    meta: { errorMessage: 'Failed to delete publishable key' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: publishableKeysQueryOptions().queryKey }),
  });
};
