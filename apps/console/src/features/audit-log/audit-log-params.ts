import { auditActions } from '@meterway/contracts';
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import type { AuditLogFilters } from './api/get-audit-log';

/**
 * The audit log's filters in the URL (`actorEmail`, `action`), so reload, back and a shared link
 * show the same entries. The URL is user input: an action the contract does not know is dropped.
 */
export function useAuditLogParams() {
  const [searchParams, setSearchParams] = useSearchParams();
  const actorEmail = searchParams.get('actorEmail')?.trim().slice(0, 100) || undefined;
  const actionParam = searchParams.get('action');
  const action = auditActions.find((known) => known === actionParam);
  const filters = useMemo<AuditLogFilters>(() => ({ actorEmail, action }), [actorEmail, action]);

  // A page token belongs to one filter, so another filter starts the list at page 1.
  const setFilters = useCallback(
    (next: AuditLogFilters) =>
      setSearchParams((current) => {
        const params = new URLSearchParams(current);
        for (const name of ['page', 'nextPageToken', 'previousPageToken', 'actorEmail', 'action']) params.delete(name);
        if (next.actorEmail) params.set('actorEmail', next.actorEmail);
        if (next.action) params.set('action', next.action);
        return params;
      }),
    [setSearchParams],
  );
  return [filters, setFilters] as const;
}
