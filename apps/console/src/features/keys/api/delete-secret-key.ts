import type { PublishableKeyDeletion } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { secretKeysQueryOptions } from './get-secret-keys';

// DELETE /bff/secret-keys/{secretKeyId} (issue #23): 204. Like a publishable key's, a reason given
// goes in the body and into the audit log; without one, no body is sent.

export const deleteSecretKey = async ({ id, reason }: { id: string; reason?: string }): Promise<void> => {
  const body: PublishableKeyDeletion = reason ? { reason } : undefined;
  await apiRequest(`/bff/secret-keys/${encodeURIComponent(id)}`, { method: 'DELETE', body });
};

export const useDeleteSecretKey = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteSecretKey,
    meta: { errorMessage: 'Failed to delete secret key' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: secretKeysQueryOptions().queryKey }),
  });
};
