import { memberListSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/members (issue #21): the organisation's members and its pending invitations.

export const getMembers = (signal?: AbortSignal) => apiRequest('/bff/members', { schema: memberListSchema, signal });

export const loadMembersFailed = 'Failed to load members';

export const membersQueryOptions = () =>
  queryOptions({ queryKey: ['members'], queryFn: ({ signal }) => getMembers(signal), meta: { errorMessage: loadMembersFailed } });

export const useMembers = () => useQuery(membersQueryOptions());
