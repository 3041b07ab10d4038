import type { CheckoutOutcome, Me } from '@meterway/contracts';
import type { PaymentConfig } from '../features/credits/api/get-payment-config';
import { HttpResponse, http } from 'msw';
import { buildMe } from './me-handlers';
import { testRuntimeConfig } from './runtime-config';

/**
 * MSW handlers for adding credits: the payment config, the checkout session, the sandbox's
 * checkout API, and /bff/me answers that change from one poll to the next. A handler given a
 * `requests` array records each JSON body it receives there, for tests that assert what was sent.
 */

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

export const testCheckoutSession = { checkoutSessionId: 'cs_sandbox_123', clientSecret: 'cs_sandbox_123_secret_abc' };

/** The api's problem details, as application/problem+json. */
export const problem = (status: number, detail: string, extra: Record<string, unknown> = {}) =>
  HttpResponse.json({ type: 'about:blank', title: 'Problem', status, detail, ...extra }, { status, headers: { 'Content-Type': 'application/problem+json' } });

const recorded = async (request: Request, requests?: unknown[]) => {
  if (requests) requests.push(await request.clone().json());
};

export const creditsHandlers = {
  /** GET /bff/checkout-sessions/:id: a paid top-up that paid no debt unless told otherwise. */
  checkoutOutcome: (outcome: Partial<CheckoutOutcome> = {}, calls?: { count: number }) =>
    http.get(`${api}/bff/checkout-sessions/:checkoutSessionId`, ({ params }) => {
      if (calls) calls.count += 1;
      return HttpResponse.json({ checkoutSessionId: String(params.checkoutSessionId), status: 'SUCCEEDED', creditAmount: 10, owedPaidAmount: 0, ...outcome });
    }),

  /** GET /bff/config; the sandbox unless told otherwise. */
  paymentConfig: (config: PaymentConfig = { paymentProvider: 'sandbox' }) => http.get(`${api}/bff/config`, () => HttpResponse.json(config)),

  /** POST /bff/stripe/checkout-session. */
  createCheckoutSession: (requests?: unknown[], session = testCheckoutSession) =>
    http.post(`${api}/bff/stripe/checkout-session`, async ({ request }) => {
      await recorded(request, requests);
      return HttpResponse.json(session);
    }),

  /** GET /sandbox/checkout-sessions/:id, answering only the session's own client secret (as the api does). */
  sandboxCheckout: (amounts: { credit: number; tax: number; total: number }, session = testCheckoutSession) =>
    http.get(`${api}/sandbox/checkout-sessions/:checkoutSessionId`, ({ params, request }) => {
      const secret = new URL(request.url).searchParams.get('client_secret');
      if (params.checkoutSessionId !== session.checkoutSessionId || secret !== session.clientSecret) {
        return problem(404, 'Unknown checkout session.');
      }
      return HttpResponse.json({
        checkoutSessionId: session.checkoutSessionId,
        mode: 'payment',
        status: 'IN_PROGRESS',
        currency: 'usd',
        ...amounts,
        expiresAt: '2030-01-01T00:00:00.000Z',
        testMode: true,
      });
    }),

  /** POST /sandbox/checkout-sessions/:id/confirm: the failure `failure` gives, else 202. */
  confirmSandbox: (requests?: unknown[], failure?: () => Response | undefined) =>
    http.post(`${api}/sandbox/checkout-sessions/:checkoutSessionId/confirm`, async ({ request }) => {
      await recorded(request, requests);
      return failure?.() ?? HttpResponse.json({ status: 'processing' }, { status: 202 });
    }),

  /**
   * GET /bff/me answering each call with the next checkout-session list, then the last one for
   * ever; `calls` counts the requests, to tell whether polling goes on.
   */
  meSequence: (sessionLists: Me['organizationCheckoutSessions'][], calls = { count: 0 }) =>
    http.get(`${api}/bff/me`, () => {
      const lists = sessionLists.length > 0 ? sessionLists : [[]];
      const index = Math.min(calls.count, lists.length - 1);
      calls.count += 1;
      return HttpResponse.json(buildMe({ organizationCheckoutSessions: lists[index] }));
    }),
};
