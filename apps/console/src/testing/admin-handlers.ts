import type { CreditGrant } from '@meterway/contracts';
import { HttpResponse, http } from 'msw';
import { testRuntimeConfig } from './runtime-config';

/** The admin area's mutations for route tests; a handler given `requests` records each JSON body it receives. */

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

export const buildCreditGrant = (overrides: Partial<CreditGrant> = {}): CreditGrant => ({
  id: '7e6d5c4b-3a29-4817-a6f5-e4d3c2b1a090',
  organizationId: '6d5e4f3a-2b1c-4d0e-9f8a-7b6c5d4e3f2a',
  organizationName: 'Compilers Inc',
  amount: 25,
  note: 'trial',
  expiresAt: '2100-01-01T00:00:00.000Z',
  balance: 25,
  ...overrides,
});

export const adminHandlers = {
  /** POST /admin/persons/:personId/credit-grants: 201 with the grant, or `answer`'s response. */
  grantCredit: (options: { requests?: { personId: string; body: unknown }[]; answer?: () => Response } = {}) =>
    http.post(`${api}/admin/persons/:personId/credit-grants`, async ({ request, params }) => {
      const body = (await request.json()) as Record<string, unknown>;
      options.requests?.push({ personId: String(params.personId), body });
      return options.answer?.() ?? HttpResponse.json(buildCreditGrant({ amount: Number(body.amount), note: String(body.note) }), { status: 201 });
    }),
};

/** The api's refusal as problem details, in its own words. */
export const refusal = (status: number, detail: string) =>
  HttpResponse.json({ type: 'about:blank', title: 'Bad Request', status, detail }, { status, headers: { 'Content-Type': 'application/problem+json' } });
