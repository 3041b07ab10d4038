import { type WebhookEndpoint, webhookEndpointListSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/webhook-endpoints (issue #23): the organisation's endpoints, without their secrets.

export const getWebhookEndpoints = async (signal?: AbortSignal): Promise<WebhookEndpoint[]> =>
  (await apiRequest('/bff/webhook-endpoints', { schema: webhookEndpointListSchema, signal })).webhookEndpoints;

export const loadWebhookEndpointsFailed = 'Failed to load webhook endpoints';

export const webhookEndpointsQueryOptions = () =>
  queryOptions({
    queryKey: ['webhook-endpoints'],
    queryFn: ({ signal }) => getWebhookEndpoints(signal),
    meta: { errorMessage: loadWebhookEndpointsFailed },
  });

export const useWebhookEndpoints = () => useQuery(webhookEndpointsQueryOptions());
