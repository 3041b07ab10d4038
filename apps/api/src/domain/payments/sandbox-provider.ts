import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ChargeOutcome, OffSessionCharge, PaymentProvider } from './payment-provider.js';
import { type OffSessionOutcome, offSessionFailures } from './sandbox-cards.js';

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
  const openSession = (taxNanos: bigint) => {
    const checkoutSessionId = `cs_sandbox_${random(24)}`;
    const clientSecret = `${checkoutSessionId}_secret_${random(24)}`;
    return {
      checkoutSessionId,
      clientSecret,
      clientSecretHash: hashSecret(clientSecret),
      taxNanos,
      expiresAt: new Date(now().getTime() + options.checkoutTtlMinutes * 60_000),
    };
  };
  return {
    name: 'sandbox',
    createCheckout: async ({ creditNanos }) => {
      const creditCents = creditNanos / 10_000_000n;
      const taxCents = BigInt(Math.round(Number(creditCents) * options.taxRate));
      return openSession(taxCents * 10_000_000n);
    },
    // A setup session is a checkout session without money: the same form and confirm endpoint.
    createSetup: async () => openSession(0n),
    chargeSavedCard: async (charge) => chargeSandboxCard(charge),
    createPortalUrl: async ({ organizationId, personId }) =>
      `${options.apiUrl}/sandbox/portal?token=${signPortalToken(options.secret, { organizationId, personId }, now().getTime() + portalTtlMs)}`,
    publicConfig: () => ({ provider: 'sandbox' }),
    // The portal's receipt page, behind a link that opens that receipt only, of the same lifetime as Invoices'.
    receiptUrl: (paid) => {
      const page = 'checkoutSessionId' in paid ? `receipts/${paid.checkoutSessionId}` : `auto-top-up-receipts/${paid.autoTopUpChargeId}`;
      const token = signReceiptToken(options.secret, paid.organizationId, page, now().getTime() + portalTtlMs);
      return `${options.apiUrl}/sandbox/portal/${page.split('/').map(encodeURIComponent).join('/')}?token=${token}`;
    },
  };
}

/** The sandbox's id of a saved card: it names what the card's off-session charges do, never its number. */
export const sandboxPaymentMethodId = (offSession: OffSessionOutcome) => `pm_sandbox_${offSession}_${random(16)}`;

/** Answers at once, as the sandbox sends no webhooks; the payment's id is the charge's, so a retry is the same payment. */
function chargeSandboxCard(charge: OffSessionCharge): ChargeOutcome {
  const paymentIntentId = `pi_sandbox_${charge.chargeId}`;
  const outcome = /^pm_sandbox_([a-z_]+)_[A-Za-z0-9]+$/.exec(charge.paymentMethodId)?.[1];
  if (outcome === 'succeed') return { outcome: 'succeeded', paymentIntentId };
  if (outcome === 'authentication_required' || outcome === 'card_declined') return { outcome: 'failed', paymentIntentId, ...offSessionFailures[outcome] };
  return { outcome: 'failed', paymentIntentId, code: 'resource_missing', message: 'The saved card is not a sandbox card. Save a card again.' };
}

/**
 * A signed, expiring link token of the organisation (and of the person it was made for), for one
 * use: `portal` opens Invoices (and its buttons), `receipt:<page>` one receipt only (issue #53: a
 * receipt link in the credit history, which more roles see, must not open the rest).
 */
function signScoped(secret: string, scope: string, subject: { organizationId: string; personId?: string }, expiresAtMs: number): string {
  const payload = [subject.organizationId, expiresAtMs, ...(subject.personId ? [subject.personId] : [])].join('.');
  const signature = createHmac('sha256', secret).update(`${scope}:${payload}`).digest('base64url');
  return `${Buffer.from(payload).toString('base64url')}.${signature}`;
}

type LinkSubject = { organizationId: string; personId: string | undefined };

function verifyScoped(secret: string, scope: string, token: string, nowMs: number): LinkSubject | undefined {
  const [encoded = '', signature = ''] = token.split('.');
  const payload = Buffer.from(encoded, 'base64url').toString();
  const expected = createHmac('sha256', secret).update(`${scope}:${payload}`).digest('base64url');
  if (signature.length !== expected.length || !timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) return undefined;
  const [organizationId, expiresAt, personId] = payload.split('.');
  return organizationId && Number(expiresAt) > nowMs ? { organizationId, personId } : undefined;
}

/** The Invoices link of the person who opened it from the console: its buttons act as them. */
export const signPortalToken = (secret: string, subject: { organizationId: string; personId?: string }, expiresAtMs: number) =>
  signScoped(secret, 'portal', subject, expiresAtMs);

/** Whose a portal link is, if the link is genuine and not expired. */
export const verifyPortalToken = (secret: string, token: string, nowMs: number) => verifyScoped(secret, 'portal', token, nowMs);

/** A link token that opens the receipt page `page` (`receipts/<id>`, `auto-top-up-receipts/<id>`) and nothing else. */
export const signReceiptToken = (secret: string, organizationId: string, page: string, expiresAtMs: number) =>
  signScoped(secret, `receipt:${page}`, { organizationId }, expiresAtMs);

export const verifyReceiptToken = (secret: string, token: string, page: string, nowMs: number) =>
  verifyScoped(secret, `receipt:${page}`, token, nowMs)?.organizationId;
