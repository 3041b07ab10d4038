import { sandboxCheckoutSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

// GET /sandbox/checkout-sessions/:id?client_secret= : what the sandbox charges (credit, tax, total).

export type SandboxCheckout = z.infer<typeof sandboxCheckoutSchema>;

export type SandboxSessionRef = { checkoutSessionId: string; clientSecret: string };

export const getSandboxCheckout = ({ checkoutSessionId, clientSecret }: SandboxSessionRef, signal?: AbortSignal): Promise<SandboxCheckout> =>
  apiRequest(`/sandbox/checkout-sessions/${encodeURIComponent(checkoutSessionId)}`, {
    query: { client_secret: clientSecret },
    schema: sandboxCheckoutSchema,
    signal,
  });

export const sandboxCheckoutQueryKey = (checkoutSessionId: string) => ['sandbox-checkout', checkoutSessionId] as const;

export const sandboxCheckoutQueryOptions = (session: SandboxSessionRef) =>
  queryOptions({
    queryKey: sandboxCheckoutQueryKey(session.checkoutSessionId),
    queryFn: ({ signal }) => getSandboxCheckout(session, signal),
  });

export const useSandboxCheckout = (session: SandboxSessionRef) => useQuery(sandboxCheckoutQueryOptions(session));
