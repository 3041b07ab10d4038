import { queryOptions, useQuery } from '@tanstack/react-query';
import { identityApi } from '../../../lib/identity-client';

/**
 * GET /self-service/recovery/flows: what identity says about a recovery it sent the browser back
 * to /recover-password with (an expired or already used link arrives as a new flow carrying the
 * reason). Silent: without it the code form is still shown and the submit reports any problem.
 */
export const getRecoveryFlow = (id: string) => identityApi().getRecoveryFlow({ id });

export const recoveryFlowQueryOptions = (id: string) =>
  queryOptions({
    queryKey: ['auth', 'recovery-flow', id],
    queryFn: () => getRecoveryFlow(id),
    meta: { silent: true },
    retry: false,
  });

export const useRecoveryFlow = (id: string) => useQuery(recoveryFlowQueryOptions(id));
