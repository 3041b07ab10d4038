import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { autoTopUpCharges } from '../../db/schema/index.js';
import { nanosPerCent } from '../money.js';
import type { ChargeOutcome, OffSessionCharge, SetupRequest, StartedCheckout } from './payment-provider.js';
import { callStripe } from './stripe-call.js';
import { ensureCustomer, storedCustomer } from './stripe-customers.js';

type Deps = { stripe: Stripe; db: Database };

/**
 * A Checkout Session in setup mode, in the same Elements UI as a top-up (Stripe documents setup
 * mode for it: "Set up future payments", embedded components). No money moves: the card the
 * holder confirms (authenticating if the bank asks) is saved to the organisation's Customer by the
 * session's SetupIntent, made for off-session use, and `checkout.session.completed` says so.
 */
export async function createStripeSetup({ stripe, db }: Deps, request: SetupRequest): Promise<StartedCheckout> {
  const customer = await ensureCustomer(stripe, db, request);
  const metadata = { organizationId: request.organizationId };
  const session = await callStripe('create a setup session', () =>
    stripe.checkout.sessions.create(
      {
        ui_mode: 'elements',
        mode: 'setup',
        // Setup mode has no line items to take a currency from; Stripe needs one to pick the payment methods shown.
        currency: 'usd',
        customer,
        return_url: request.returnUrl,
        allowed_payment_method_types: ['card'],
        metadata,
        client_reference_id: request.organizationId,
        setup_intent_data: { metadata },
      },
      { idempotencyKey: `setup-session-${randomUUID()}` },
    ),
  );
  if (!session.client_secret) throw new Error(`Stripe returned setup session ${session.id} without a client secret.`);
  return { checkoutSessionId: session.id, clientSecret: session.client_secret, expiresAt: new Date(session.expires_at * 1000), taxNanos: 0n };
}

/**
 * Charges the saved card with nobody at the keyboard: a PaymentIntent created and confirmed in one
 * call, `off_session` so the bank is told the holder is away (it may then refuse with
 * `authentication_required` instead of asking for a challenge no one would answer). The key makes
 * the charge once per auto_top_up_charges row, whatever retries or second instances send. A
 * decline is Stripe's 402 card error, which becomes a failed outcome; a success still waits for
 * `payment_intent.succeeded`, which credits.
 *
 * A charge sent before whose PaymentIntent we know (the worker resends one stuck in processing, its
 * webhook not applied) is read back instead of sent: Stripe keeps idempotency keys only 24 hours,
 * and what it has now settles the charge as the webhook would (so a lost webhook cannot leave it
 * processing for ever, nor a late resend charge twice).
 */
export async function chargeStripeSavedCard({ stripe, db }: Deps, charge: OffSessionCharge): Promise<ChargeOutcome> {
  if (charge.amountNanos <= 0n || charge.amountNanos % nanosPerCent !== 0n) throw new Error('An auto top-up is a positive number of whole cents.');
  const [sent] = await db
    .select({ paymentIntentId: autoTopUpCharges.paymentIntentId })
    .from(autoTopUpCharges)
    .where(and(eq(autoTopUpCharges.organizationId, charge.organizationId), eq(autoTopUpCharges.id, charge.chargeId)));
  if (sent?.paymentIntentId) {
    const paymentIntentId = sent.paymentIntentId;
    const intent = await callStripe('read the payment intent', () => stripe.paymentIntents.retrieve(paymentIntentId));
    return intent.status === 'succeeded' ? { outcome: 'succeeded', paymentIntentId: intent.id } : outcomeOf(intent);
  }
  const customer = await storedCustomer(db, charge.organizationId);
  if (!customer) throw new Error(`organisation ${charge.organizationId} has a saved card but no Stripe customer`);
  const attempt = stripe.paymentIntents
    .create(
      {
        amount: Number(charge.amountNanos / nanosPerCent),
        currency: 'usd',
        customer,
        payment_method: charge.paymentMethodId,
        off_session: true,
        confirm: true,
        metadata: { auto_top_up_charge_id: charge.chargeId, organization_id: charge.organizationId },
      },
      { idempotencyKey: `auto-top-up-${charge.chargeId}` },
    )
    .then(outcomeOf, (error: unknown) => {
      if (error instanceof Stripe.errors.StripeCardError) return declined(error);
      throw error;
    });
  return callStripe('charge the saved card', () => attempt);
}

function outcomeOf(intent: Stripe.PaymentIntent): ChargeOutcome {
  if (intent.status === 'succeeded' || intent.status === 'processing') return { outcome: 'processing', paymentIntentId: intent.id };
  // Off-session Stripe answers a card that needs its holder with a 402, not requires_action; this is the same case if it ever does not.
  const error = intent.last_payment_error;
  return {
    outcome: 'failed',
    paymentIntentId: intent.id,
    code: error?.code ?? (intent.status === 'requires_action' ? 'authentication_required' : intent.status),
    message: error?.message ?? 'The card could not be charged without its holder.',
  };
}

function declined(error: Stripe.errors.StripeCardError): ChargeOutcome {
  return {
    outcome: 'failed',
    ...(error.payment_intent ? { paymentIntentId: error.payment_intent.id } : {}),
    code: error.code ?? 'card_declined',
    message: error.message,
  };
}
