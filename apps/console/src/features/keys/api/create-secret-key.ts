import { type SecretKey, type SecretKeyInput, secretKeySchema } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { secretKeysQueryOptions } from './get-secret-keys';

// POST /bff/secret-keys (issue #23): 201 with the new key, its value included this once.

export const createSecretKey = (input: SecretKeyInput): Promise<SecretKey> =>
  apiRequest('/bff/secret-keys', { method: 'POST', body: input, schema: secretKeySchema });

export const useCreateSecretKey = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createSecretKey,
    meta: { errorMessage: 'Failed to create secret key' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: secretKeysQueryOptions().queryKey }),
  });
};
