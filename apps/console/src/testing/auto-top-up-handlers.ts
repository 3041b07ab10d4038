import { type AutoTopUp, type AutoTopUpInput, defaultAutoTopUp } from '@meterway/contracts';
import { HttpResponse, http } from 'msw';
import { problem } from './credits-handlers';
import type { RecordedRequest } from './keys-handlers';
import { testRuntimeConfig } from './runtime-config';

/**
 * MSW handlers for auto top-up (issue #22). `get` is also every test's default (the dashboard
 * always loads it): off, no card, the contract's defaults. `update` records the PUT body and answers
 * it back with the rest of `current`, or `failure`'s problem details.
 */

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

export const buildAutoTopUp = (overrides: Partial<AutoTopUp> = {}): AutoTopUp => ({
  enabled: false,
  ...defaultAutoTopUp,
  chargedThisMonthAmount: 0,
  paymentMethod: null,
  disabledReason: null,
  heldBackReason: null,
  ...overrides,
});

export const testSetupSession = { checkoutSessionId: 'cs_setup_123', clientSecret: 'cs_setup_123_secret_abc' };

export const autoTopUpHandlers = {
  get: (settings: AutoTopUp = buildAutoTopUp()) => http.get(`${api}/bff/auto-top-up`, () => HttpResponse.json(settings)),
  /** Answers each GET with the next of `answers`, then the last one for ever. */
  sequence: (...answers: AutoTopUp[]) => {
    let call = 0;
    return http.get(`${api}/bff/auto-top-up`, () => HttpResponse.json(answers[Math.min(call++, answers.length - 1)]));
  },
  update: ({ requests, current = buildAutoTopUp(), failure }: { requests?: RecordedRequest[]; current?: AutoTopUp; failure?: () => Response } = {}) =>
    http.put(`${api}/bff/auto-top-up`, async ({ request }) => {
      const body = (await request.json()) as AutoTopUpInput;
      requests?.push({ body });
      return failure?.() ?? HttpResponse.json({ ...current, ...body, disabledReason: body.enabled ? null : current.disabledReason });
    }),
  /** POST /bff/auto-top-up/payment-method: a setup-mode session. */
  createPaymentMethod: (calls?: { count: number }, session = testSetupSession) =>
    http.post(`${api}/bff/auto-top-up/payment-method`, () => {
      if (calls) calls.count += 1;
      return HttpResponse.json(session);
    }),
  /** GET /sandbox/checkout-sessions/:id of a setup-mode session: nothing charged. */
  sandboxSetup: (session = testSetupSession) =>
    http.get(`${api}/sandbox/checkout-sessions/:checkoutSessionId`, ({ params, request }) => {
      const secret = new URL(request.url).searchParams.get('client_secret');
      if (params.checkoutSessionId !== session.checkoutSessionId || secret !== session.clientSecret) return problem(404, 'Unknown checkout session.');
      return HttpResponse.json({
        checkoutSessionId: session.checkoutSessionId,
        mode: 'setup',
        status: 'IN_PROGRESS',
        currency: 'usd',
        credit: 0,
        tax: 0,
        total: 0,
        expiresAt: '2030-01-01T00:00:00.000Z',
        testMode: true,
      });
    }),
};
