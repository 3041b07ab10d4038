import { type WebhookDelivery, webhookDeliveryListSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { webhookEndpointsQueryOptions } from './get-webhook-endpoints';

// GET /bff/webhook-endpoints/{webhookEndpointId}/deliveries (issue #23): the latest deliveries, newest first, with their attempts.

export const getWebhookDeliveries = async (webhookEndpointId: string, signal?: AbortSignal): Promise<WebhookDelivery[]> =>
  (await apiRequest(`/bff/webhook-endpoints/${encodeURIComponent(webhookEndpointId)}/deliveries`, { schema: webhookDeliveryListSchema, signal })).deliveries;

export const loadWebhookDeliveriesFailed = 'Failed to load deliveries';

/** Under the endpoints' key, so deleting an endpoint drops its deliveries too. */
export const webhookDeliveriesQueryOptions = (webhookEndpointId: string) =>
  queryOptions({
    queryKey: [...webhookEndpointsQueryOptions().queryKey, webhookEndpointId, 'deliveries'],
    queryFn: ({ signal }) => getWebhookDeliveries(webhookEndpointId, signal),
    meta: { errorMessage: loadWebhookDeliveriesFailed },
  });

export const useWebhookDeliveries = (webhookEndpointId: string) => useQuery(webhookDeliveriesQueryOptions(webhookEndpointId));
