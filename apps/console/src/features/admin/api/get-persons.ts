import { personPageSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ListRequest } from '../../../components/pager';
import { apiRequest } from '../../../lib/api-client';

// GET /admin/persons (spec §7): one page of every user, for system admins only.

export const getPersons = (request: ListRequest, signal?: AbortSignal) => apiRequest('/admin/persons', { query: request, schema: personPageSchema, signal });

export const personsQueryKey = ['admin', 'persons'] as const;

export const personsQueryOptions = (request: ListRequest) =>
  queryOptions({
    queryKey: [...personsQueryKey, request],
    queryFn: ({ signal }) => getPersons(request, signal),
    meta: { silent: true, errorMessage: 'Failed to load persons' },
  });

export const usePersons = (request: ListRequest) => useQuery(personsQueryOptions(request));
