import { type AuditAction, auditLogPageSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ListRequest } from '../../../components/pager';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/audit-log (issue #21): one page of who did what in the organisation, newest first by
// default, optionally one actor's or one action's.

export type AuditLogFilters = { actorEmail?: string | undefined; action?: AuditAction | undefined };

export type AuditLogRequest = ListRequest & AuditLogFilters;

export const getAuditLog = (request: AuditLogRequest, signal?: AbortSignal) =>
  apiRequest('/bff/audit-log', { query: request, schema: auditLogPageSchema, signal });

export const auditLogQueryOptions = (request: AuditLogRequest) =>
  queryOptions({
    queryKey: ['audit-log', request],
    queryFn: ({ signal }) => getAuditLog(request, signal),
    meta: { silent: true, errorMessage: 'Failed to load the audit log' },
  });

export const useAuditLog = (request: AuditLogRequest) => useQuery(auditLogQueryOptions(request));
