import type { Database } from '@meterway/db';
import type { Viewer } from '../people/ensure-person.js';
import { recordCheckout } from '../payments/checkout-sessions.js';
import type { PaymentProvider } from '../payments/payment-provider.js';

/**
 * Opens a setup-mode session to save a card for auto top-up, recorded IN_PROGRESS (no credit) before
 * answering, so a notification that arrives first finds it; its success saves the card (save-card.ts).
 */
export async function startCardSetup(db: Database, provider: PaymentProvider, viewer: Viewer, input: { consoleUrl: string }) {
  const started = await provider.createSetup({
    organizationId: viewer.organizationId,
    organizationName: viewer.organizationName,
    email: viewer.email,
    returnUrl: `${input.consoleUrl}/auto-top-up/card?checkoutSessionId={CHECKOUT_SESSION_ID}`,
  });
  await recordCheckout(db, {
    id: started.checkoutSessionId,
    organizationId: viewer.organizationId,
    provider: provider.name,
    mode: 'setup',
    creditNanos: 0n,
    taxNanos: 0n,
    expiresAt: started.expiresAt,
    startedBy: viewer.personId,
    ...(started.clientSecretHash ? { clientSecretHash: started.clientSecretHash } : {}),
  });
  return { checkoutSessionId: started.checkoutSessionId, clientSecret: started.clientSecret };
}
