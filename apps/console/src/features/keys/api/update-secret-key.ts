import type { SecretKeyInput } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { secretKeysQueryOptions } from './get-secret-keys';

// PUT /bff/secret-keys/{secretKeyId} (issue #23): the create body without the scope, which never changes.

export type UpdateSecretKeyVariables = { id: string; input: Omit<SecretKeyInput, 'scope'> };

/** The answer (the key, without its value) is not read: the list is refetched instead. */
export const updateSecretKey = async ({ id, input }: UpdateSecretKeyVariables): Promise<void> => {
  await apiRequest(`/bff/secret-keys/${encodeURIComponent(id)}`, { method: 'PUT', body: input });
};

export const useUpdateSecretKey = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateSecretKey,
    meta: { errorMessage: 'Failed to update secret key' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: secretKeysQueryOptions().queryKey }),
  });
};
