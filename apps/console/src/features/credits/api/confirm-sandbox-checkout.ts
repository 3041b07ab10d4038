import { type sandboxConfirmSchema } from '@meterway/contracts';
import { mutationOptions, useMutation } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

// POST /sandbox/checkout-sessions/:id/confirm: a card that goes through is answered 202 and its
// outcome reaches /bff/me a moment later, as a provider's webhook would; a refused card is answered
// at once (402 for a decline, 400 for a wrong number or a past expiry) and the session stays open.

export type SandboxCard = Omit<z.input<typeof sandboxConfirmSchema>, 'clientSecret'>;
export type SandboxConfirmInput = SandboxCard & { checkoutSessionId: string; clientSecret: string };

export const confirmSandboxCheckout = async ({ checkoutSessionId, ...body }: SandboxConfirmInput): Promise<void> => {
  await apiRequest(`/sandbox/checkout-sessions/${encodeURIComponent(checkoutSessionId)}/confirm`, { method: 'POST', body });
};

/** Silent: the form shows why the card was refused, next to it, rather than in a toast. */
export const confirmSandboxCheckoutMutationOptions = () => mutationOptions({ mutationFn: confirmSandboxCheckout, meta: { silent: true } });

export const useConfirmSandboxCheckout = () => useMutation(confirmSandboxCheckoutMutationOptions());
