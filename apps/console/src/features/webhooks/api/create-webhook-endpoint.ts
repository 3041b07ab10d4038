import { type WebhookEndpoint, type WebhookEndpointInput, webhookEndpointSchema } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { webhookEndpointsQueryOptions } from './get-webhook-endpoints';

// POST /bff/webhook-endpoints (issue #23): 201 with the endpoint and its signing secret, this once.

export const createWebhookEndpoint = (input: WebhookEndpointInput): Promise<WebhookEndpoint> =>
  apiRequest('/bff/webhook-endpoints', { method: 'POST', body: input, schema: webhookEndpointSchema });

export const useCreateWebhookEndpoint = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createWebhookEndpoint,
    meta: { errorMessage: 'Failed to add webhook endpoint' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookEndpointsQueryOptions().queryKey }),
  });
};
