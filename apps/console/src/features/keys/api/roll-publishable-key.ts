import { type PublishableKey, type PublishableKeyRoll, publishableKeySchema } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { publishableKeysQueryOptions } from './get-publishable-keys';

// POST /bff/publishable-keys/{publishableKeyId}/roll: 200 with the key and its new value.

export type RollPublishableKeyVariables = { id: string; input: PublishableKeyRoll };

export const rollPublishableKey = ({ id, input }: RollPublishableKeyVariables): Promise<PublishableKey> =>
  apiRequest(`/bff/publishable-keys/${encodeURIComponent(id)}/roll`, { method: 'POST', body: input, schema: publishableKeySchema });

export const useRollPublishableKey = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: rollPublishableKey,
    meta: { errorMessage: 'Failed to roll publishable key' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: publishableKeysQueryOptions().queryKey }),
  });
};
