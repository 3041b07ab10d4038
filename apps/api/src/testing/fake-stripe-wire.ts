import { randomBytes } from 'node:crypto';

/** Stripe's wire format as the fake speaks it (payments-protocol.md §5.2): bracket forms in, error bodies out. */

/** A decoded form body: `a[b][0]=x` → `{ a: { b: ['x'] } }`; leaves stay strings, as on the wire. */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormParams = { [key: string]: FormValue };

export function parseForm(body: string): FormParams {
  const root: FormParams = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: Record<string, FormValue> = root;
    path.forEach((part, index) => {
      const next = path[index + 1];
      if (next === undefined) node[part] = value;
      else node = (node[part] ??= /^\d+$/.test(next) ? [] : {}) as Record<string, FormValue>;
    });
  }
  return root;
}

export const field = (value: FormValue | undefined): string | undefined => (typeof value === 'string' ? value : undefined);
export const object = (value: FormValue | undefined): Record<string, FormValue> => (value && typeof value === 'object' && !Array.isArray(value) ? value : {});
export const list = (value: FormValue | undefined): FormValue[] => (Array.isArray(value) ? value : []);

export type StripeErrorBody = {
  type: 'invalid_request_error' | 'api_error' | 'idempotency_error' | 'card_error';
  message: string;
  code?: string;
  decline_code?: string;
  param?: string;
  doc_url?: string;
  /** Card errors of a PaymentIntent carry it (and its payment method) as they were left. */
  payment_intent?: unknown;
  payment_method?: unknown;
};

export class StripeFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: StripeErrorBody,
  ) {
    super(error.message);
  }
}

export const invalid = (message: string, extra: Omit<StripeErrorBody, 'type' | 'message'> = {}) =>
  new StripeFailure(400, { type: 'invalid_request_error', message, ...extra });
export const missing = (what: string, id: string, param = 'id') => invalid(`No such ${what}: '${id}'`, { code: 'resource_missing', param });

export const random = (length: number) => randomBytes(length).toString('base64url').replace(/[-_]/g, 'x').slice(0, length);
export const seconds = () => Math.floor(Date.now() / 1000);

export type FakeCharge = {
  id: string;
  object: 'charge';
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: string;
  payment_intent: string;
  paid: true;
  refunded: boolean;
  disputed: boolean;
  status: 'succeeded';
  /** Stripe's hosted receipt of the charge, kept up to date with refunds. */
  receipt_url: string;
  created: number;
  livemode: false;
};

/** The charge a successful payment made. */
export function paidCharge(paymentIntent: string, amount: number, currency: string): FakeCharge {
  return {
    id: `ch_${random(24)}`,
    object: 'charge',
    amount,
    amount_captured: amount,
    amount_refunded: 0,
    currency,
    payment_intent: paymentIntent,
    paid: true,
    refunded: false,
    disputed: false,
    status: 'succeeded',
    receipt_url: `https://pay.stripe.com/receipts/payment/${random(96)}?s=ap`,
    created: seconds(),
    livemode: false,
  };
}
