import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { webhookEndpointsQueryOptions } from './get-webhook-endpoints';

// DELETE /bff/webhook-endpoints/{webhookEndpointId} (issue #23): 204; no more deliveries go there.

export const deleteWebhookEndpoint = async (id: string): Promise<void> => {
  await apiRequest(`/bff/webhook-endpoints/${encodeURIComponent(id)}`, { method: 'DELETE' });
};

export const useDeleteWebhookEndpoint = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteWebhookEndpoint,
    meta: { errorMessage: 'Failed to delete webhook endpoint' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookEndpointsQueryOptions().queryKey }),
  });
};
