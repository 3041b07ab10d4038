import { type PublishableKeyRoll, type SecretKey, secretKeySchema } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { secretKeysQueryOptions } from './get-secret-keys';

// POST /bff/secret-keys/{secretKeyId}/roll (issue #23): the publishable roll's body; 200 with the key and its new value, shown once.

export type RollSecretKeyVariables = { id: string; input: PublishableKeyRoll };

export const rollSecretKey = ({ id, input }: RollSecretKeyVariables): Promise<SecretKey> =>
  apiRequest(`/bff/secret-keys/${encodeURIComponent(id)}/roll`, { method: 'POST', body: input, schema: secretKeySchema });

export const useRollSecretKey = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: rollSecretKey,
    meta: { errorMessage: 'Failed to roll secret key' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: secretKeysQueryOptions().queryKey }),
  });
};
