import { creditHistoryPageSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ListRequest } from '../../../components/pager';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/credit-history (issue #22): one page of the organisation's top-ups, refunds, disputes
// and adjustments, newest first.

export const getCreditHistory = (request: ListRequest, signal?: AbortSignal) =>
  apiRequest('/bff/credit-history', { query: request, schema: creditHistoryPageSchema, signal });

export const creditHistoryQueryOptions = (request: ListRequest) =>
  queryOptions({
    queryKey: ['credit-history', request],
    queryFn: ({ signal }) => getCreditHistory(request, signal),
    meta: { silent: true, errorMessage: 'Failed to load the credit history' },
  });

export const useCreditHistory = (request: ListRequest) => useQuery(creditHistoryQueryOptions(request));
