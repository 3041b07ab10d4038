import type { Database } from '@meterway/db';
import { dollarsToNanos } from '../money.js';
import type { Viewer } from '../people/ensure-person.js';
import { recordCheckout } from './checkout-sessions.js';
import type { PaymentProvider } from './payment-provider.js';

/**
 * Starts a top-up: the provider opens a checkout session and we record it IN_PROGRESS before
 * answering, so a notification that arrives first finds it.
 */
export async function startCheckout(db: Database, provider: PaymentProvider, viewer: Viewer, input: { amount: number; consoleUrl: string }) {
  const creditNanos = dollarsToNanos(Math.round(input.amount * 100) / 100);
  const started = await provider.createCheckout({
    organizationId: viewer.organizationId,
    organizationName: viewer.organizationName,
    email: viewer.email,
    creditNanos,
    returnUrl: `${input.consoleUrl}/add-credits?checkoutSessionId={CHECKOUT_SESSION_ID}`,
  });
  await recordCheckout(db, {
    id: started.checkoutSessionId,
    organizationId: viewer.organizationId,
    provider: provider.name,
    creditNanos,
    taxNanos: started.taxNanos,
    expiresAt: started.expiresAt,
    startedBy: viewer.personId,
    ...(started.clientSecretHash ? { clientSecretHash: started.clientSecretHash } : {}),
  });
  return { checkoutSessionId: started.checkoutSessionId, clientSecret: started.clientSecret };
}
