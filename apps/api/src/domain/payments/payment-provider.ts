/**
 * A card payment provider: Stripe in production, the sandbox by default. Both create a checkout
 * session for a top-up and open a customer portal; how a payment is then confirmed (Stripe's
 * webhooks, the sandbox's own confirm endpoint) ends in the same checkout-session transitions.
 */
export type CheckoutRequest = {
  organizationId: string;
  organizationName: string;
  email: string;
  /** The credit bought, in nano-dollars (whole cents). */
  creditNanos: bigint;
  /** Where the browser returns; contains the literal `{CHECKOUT_SESSION_ID}`. */
  returnUrl: string;
};

export type StartedCheckout = {
  checkoutSessionId: string;
  clientSecret: string;
  expiresAt: Date;
  /** Estimated tax known at creation (the sandbox's rate; Stripe computes it in the browser). */
  taxNanos: bigint;
  /** sha256 of the client secret, when the provider's own pages need to check it (sandbox). */
  clientSecretHash?: string;
};

/** A setup-mode session (issue #22): saves a card for auto top-up; no money moves. */
export type SetupRequest = Omit<CheckoutRequest, 'creditNanos'>;

/** An auto top-up charge of the saved card, made with nobody at the keyboard. */
export type OffSessionCharge = {
  /** The auto_top_up_charges row: the provider's idempotency key and the payment's metadata. */
  chargeId: string;
  organizationId: string;
  amountNanos: bigint;
  /** The saved card (Stripe's pm_…), with its customer at the provider where it has one. */
  paymentMethodId: string;
};

/**
 * What the provider said at once: Stripe confirms through its signed webhooks later (`processing`
 * until then, even when its response already says succeeded); the sandbox, which sends no
 * webhooks, knows at once (`succeeded`). A decline, or a card that needs its holder to
 * authenticate, is `failed` with the provider's code and message.
 */
export type ChargeOutcome =
  { outcome: 'processing' | 'succeeded'; paymentIntentId: string } | { outcome: 'failed'; paymentIntentId?: string; code: string; message: string };

/** A notification as it arrived: the exact bytes (signatures cover them) and the signature header. */
export type WebhookDelivery = { rawBody: Buffer; signature: string | undefined; now: Date };

/**
 * What became of a verified notification: handled (recorded; the checkout session moved if the
 * payment says so), a duplicate of one handled before, or ignored (not a type or session of ours).
 */
export type WebhookReceipt = { eventId: string; type: string; outcome: 'handled' | 'duplicate' | 'ignored' };

export type PaymentProvider = {
  name: 'stripe' | 'sandbox';
  createCheckout: (request: CheckoutRequest) => Promise<StartedCheckout>;
  /** A setup-mode session for saving a card; confirmed like a checkout (webhook, or the sandbox's confirm endpoint). */
  createSetup: (request: SetupRequest) => Promise<StartedCheckout>;
  /** Charges a saved card off-session, idempotently by `chargeId`. */
  chargeSavedCard: (charge: OffSessionCharge) => Promise<ChargeOutcome>;
  createPortalUrl: (request: { organizationId: string; organizationName: string; personId: string; email: string; returnUrl: string }) => Promise<string>;
  /** What the console may know: which provider, and Stripe's publishable key. */
  publicConfig: () => { provider: 'stripe' | 'sandbox'; stripePublishableKey?: string };
  /**
   * A paid top-up's or auto top-up charge's receipt at the provider, for providers that link one
   * without asking (the sandbox's receipt page); Stripe's receipt_url is stored when the payment
   * is confirmed instead.
   */
  receiptUrl?: (paid: { organizationId: string; checkoutSessionId: string } | { organizationId: string; autoTopUpChargeId: string }) => string;
  /**
   * Providers that notify by webhook (Stripe) verify and apply a delivery here. A missing or bad
   * signature throws AppError('BadRequest') and changes nothing.
   */
  receiveWebhook?: (delivery: WebhookDelivery) => Promise<WebhookReceipt>;
};
