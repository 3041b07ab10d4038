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
  createPortalUrl: (request: { organizationId: string; organizationName: string; email: string; returnUrl: string }) => Promise<string>;
  /** What the console may know: which provider, and Stripe's publishable key. */
  publicConfig: () => { provider: 'stripe' | 'sandbox'; stripePublishableKey?: string };
  /**
   * A paid top-up's receipt at the provider, for providers that can link one without asking (the
   * sandbox's receipt page); the credit history shows none where this is absent.
   */
  receiptUrl?: (topUp: { organizationId: string; checkoutSessionId: string }) => string;
  /**
   * Providers that notify by webhook (Stripe) verify and apply a delivery here. A missing or bad
   * signature throws AppError('BadRequest') and changes nothing.
   */
  receiveWebhook?: (delivery: WebhookDelivery) => Promise<WebhookReceipt>;
};
