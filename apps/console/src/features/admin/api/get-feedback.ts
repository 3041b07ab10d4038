import { feedbackPageSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ListRequest } from '../../../components/pager';
import { apiRequest } from '../../../lib/api-client';

// GET /admin/feedback (spec §7): one page of all submitted feedback, for system admins only.

export const getFeedback = (request: ListRequest, signal?: AbortSignal) =>
  apiRequest('/admin/feedback', { query: request, schema: feedbackPageSchema, signal });

export const feedbackQueryKey = ['admin', 'feedback'] as const;

export const feedbackQueryOptions = (request: ListRequest) =>
  queryOptions({
    queryKey: [...feedbackQueryKey, request],
    queryFn: ({ signal }) => getFeedback(request, signal),
    meta: { silent: true, errorMessage: 'Failed to load feedback' },
  });

export const useFeedback = (request: ListRequest) => useQuery(feedbackQueryOptions(request));
