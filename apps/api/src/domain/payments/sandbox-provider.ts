import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PaymentProvider } from './payment-provider.js';

const random = (bytes: number) => randomBytes(bytes).toString('base64url').replace(/[-_]/g, '').slice(0, bytes);
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Portal links live an hour. */
const portalTtlMs = 60 * 60 * 1000;

/**
 * The embedded default: a test-mode provider that takes no real money. Its checkout page is the
 * console's sandbox form, confirmed through /sandbox/checkout-sessions/:id/confirm; its portal is
 * a signed link to the api's own invoices page.
 */
export function sandboxProvider(options: { apiUrl: string; secret: string; taxRate: number; checkoutTtlMinutes: number; now?: () => Date }): PaymentProvider {
  const now = options.now ?? (() => new Date());
  return {
    name: 'sandbox',
    createCheckout: async ({ creditNanos }) => {
      const checkoutSessionId = `cs_sandbox_${random(24)}`;
      const clientSecret = `${checkoutSessionId}_secret_${random(24)}`;
      const creditCents = creditNanos / 10_000_000n;
      const taxCents = BigInt(Math.round(Number(creditCents) * options.taxRate));
      return {
        checkoutSessionId,
        clientSecret,
        clientSecretHash: hashSecret(clientSecret),
        taxNanos: taxCents * 10_000_000n,
        expiresAt: new Date(now().getTime() + options.checkoutTtlMinutes * 60_000),
      };
    },
    // TODO(#22 helper): replace with the real setup session and off-session charge.
    createSetup: async () => {
      throw new Error('not implemented yet');
    },
    chargeSavedCard: async () => {
      throw new Error('not implemented yet');
    },
    createPortalUrl: async ({ organizationId }) =>
      `${options.apiUrl}/sandbox/portal?token=${signPortalToken(options.secret, organizationId, now().getTime() + portalTtlMs)}`,
    publicConfig: () => ({ provider: 'sandbox' }),
    // The portal's receipt page, behind a portal link of the same lifetime as Invoices'.
    receiptUrl: ({ organizationId, checkoutSessionId }) =>
      `${options.apiUrl}/sandbox/portal/receipts/${encodeURIComponent(checkoutSessionId)}?token=${signPortalToken(options.secret, organizationId, now().getTime() + portalTtlMs)}`,
  };
}

export function signPortalToken(secret: string, organizationId: string, expiresAtMs: number): string {
  const payload = `${organizationId}.${expiresAtMs}`;
  const signature = createHmac('sha256', secret).update(`portal:${payload}`).digest('base64url');
  return `${Buffer.from(payload).toString('base64url')}.${signature}`;
}

/** The organisation a portal link is for, if the link is genuine and not expired. */
export function verifyPortalToken(secret: string, token: string, nowMs: number): string | undefined {
  const [encoded = '', signature = ''] = token.split('.');
  const payload = Buffer.from(encoded, 'base64url').toString();
  const expected = createHmac('sha256', secret).update(`portal:${payload}`).digest('base64url');
  if (signature.length !== expected.length || !timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) return undefined;
  const [organizationId, expiresAt] = payload.split('.');
  return organizationId && Number(expiresAt) > nowMs ? organizationId : undefined;
}
