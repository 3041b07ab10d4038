import whoamiAal2Required from '@meterway/contracts/fixtures/identity/whoami-aal2-required.json';
import type { Me } from '@meterway/contracts';
import { HttpResponse, http } from 'msw';
import { testRuntimeConfig } from './runtime-config';

/**
 * GET /bff/me answers for route tests: a typed factory plus one MSW handler per situation the
 * guards tell apart (signed in, admin, no organisation, EmailNotVerified, a second factor due, any
 * other failure).
 */

const meUrl = `${testRuntimeConfig.apiUrls['http://localhost:3000']}/bff/me`;

/** A signed-in user of an organisation; `overrides` replace any field. */
export const buildMe = (overrides: Partial<Me> = {}): Me => ({
  email: 'ada@example.com',
  organizationName: 'Analytical Engines',
  systemAdmin: false,
  organizationId: 'org_01',
  remainingSpendAmount: 42.5,
  owedAmount: 0,
  promotionalCreditAmount: 0,
  nextCreditExpiry: null,
  organizationCheckoutSessions: [],
  role: 'owner',
  organizations: [{ organizationId: 'org_01', organizationName: 'Analytical Engines', role: 'owner' }],
  ...overrides,
});

/** The api's problem details for a status, as the real api answers (application/problem+json). */
const problem = (status: number, extra: Record<string, unknown> = {}) =>
  HttpResponse.json(
    { type: 'about:blank', title: `Status ${status}`, status, detail: `Status ${status}`, ...extra },
    { status, headers: { 'Content-Type': 'application/problem+json' } },
  );

export const meHandlers = {
  /** 200 with `buildMe(overrides)`. */
  signedIn: (overrides: Partial<Me> = {}) => http.get(meUrl, () => HttpResponse.json(buildMe(overrides))),
  /**
   * 200 with `buildMe(overrides)` of the next of `answers` at each call (the last one again once they
   * run out), so a test sees /bff/me answer for another organisation after a switch.
   */
  sequence: (...answers: Partial<Me>[]) => {
    let call = 0;
    return http.get(meUrl, () => HttpResponse.json(buildMe(answers[Math.min(call++, answers.length - 1)])));
  },
  /** 200 for a system administrator. */
  admin: (overrides: Partial<Me> = {}) => meHandlers.signedIn({ systemAdmin: true, ...overrides }),
  /** 200 for a session without an organisation (empty organizationId). */
  noOrganization: (overrides: Partial<Me> = {}) => meHandlers.signedIn({ organizationId: '', organizationName: '', ...overrides }),
  /** 401 `{"code":"EmailNotVerified","email"}`: signed in, address not verified yet. */
  emailNotVerified: (email = 'ada@example.com') => http.get(meUrl, () => HttpResponse.json({ code: 'EmailNotVerified', email }, { status: 401 })),
  /** 403: identity's session_aal2_required, passed on by the api while a second factor is due. */
  secondFactorRequired: () => http.get(meUrl, () => HttpResponse.json(whoamiAal2Required.body, { status: 403 })),
  /** Any other failure (401 without a session, 500…) as problem details. */
  failure: (status = 500) => http.get(meUrl, () => problem(status)),
};
