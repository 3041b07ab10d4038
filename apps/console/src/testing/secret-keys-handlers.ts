import type { SecretKey } from '@meterway/contracts';
import { HttpResponse, http } from 'msw';
import { problem, type RecordedRequest } from './keys-handlers';
import { testRuntimeConfig } from './runtime-config';

/**
 * MSW handlers for the dashboard's secret keys (issue #23). Like the publishable keys' handlers, a
 * mutation given a `requests` array records there the key id from the path and the JSON body;
 * `failure` answers that status as problem details instead.
 */

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

/** A gateway key as the list answers it: no value. */
export const buildSecretKey = (overrides: Partial<SecretKey> = {}): SecretKey => ({
  id: '2e4f6a8b-0c1d-4e3f-9a5b-7c9d1e3f5a7b',
  name: 'Backend',
  scope: 'gateway',
  prefix: 'sk_live_AbCd',
  spendLimitAmount: 50,
  spendLimitPeriodType: 'monthly',
  currentPeriodSpendAmount: 12.5,
  allowedModels: null,
  maxOutputTokensPerCall: null,
  perClientLimits: { requestsPerMinute: null, spendPerDay: null },
  perEndUserLimits: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null },
  endUserTokens: null,
  responseCacheSeconds: null,
  responseCacheShared: false,
  worstCaseDailySpend: 37.5,
  madeBy: { personId: '7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918', email: 'ada@example.com', role: 'owner' },
  ...overrides,
});

type MutationOptions = { requests?: RecordedRequest[]; failure?: number };

const record = async (requests: RecordedRequest[] | undefined, request: Request, id?: string) => {
  const text = await request.clone().text();
  requests?.push({ ...(id ? { id } : {}), ...(text ? { body: JSON.parse(text) as unknown } : {}) });
};

export const secretKeysHandlers = {
  /**
   * GET /bff/secret-keys. Each call answers the next list of `answers` (the last one again once they
   * run out), so a test sees the list change after a mutation. `asked` collects each call's URL.
   */
  list: (answers: SecretKey[] | SecretKey[][] = [], { asked }: { asked?: string[] } = {}) => {
    const lists = (answers.length > 0 && Array.isArray(answers[0]) ? answers : [answers]) as SecretKey[][];
    let call = 0;
    return http.get(`${api}/bff/secret-keys`, ({ request }) => {
      asked?.push(request.url);
      return HttpResponse.json({ secretKeys: lists[Math.min(call++, lists.length - 1)] });
    });
  },
  listFailure: (status = 500) => http.get(`${api}/bff/secret-keys`, () => problem(status)),

  /** POST /bff/secret-keys: 201 with `created` (its value included). */
  create: (created: SecretKey, { requests, failure }: MutationOptions = {}) =>
    http.post(`${api}/bff/secret-keys`, async ({ request }) => {
      await record(requests, request);
      return failure ? problem(failure) : HttpResponse.json(created, { status: 201 });
    }),

  /** PUT /bff/secret-keys/:id: 200 with `updated`. */
  update: (updated: SecretKey = buildSecretKey(), { requests, failure }: MutationOptions = {}) =>
    http.put(`${api}/bff/secret-keys/:secretKeyId`, async ({ request, params }) => {
      await record(requests, request, String(params.secretKeyId));
      return failure ? problem(failure) : HttpResponse.json(updated);
    }),

  /** POST /bff/secret-keys/:id/roll: 200 with `rolled` (its new value included). */
  roll: (rolled: SecretKey, { requests, failure }: MutationOptions = {}) =>
    http.post(`${api}/bff/secret-keys/:secretKeyId/roll`, async ({ request, params }) => {
      await record(requests, request, String(params.secretKeyId));
      return failure ? problem(failure) : HttpResponse.json(rolled);
    }),

  /** DELETE /bff/secret-keys/:id: 204. */
  remove: ({ requests, failure }: MutationOptions = {}) =>
    http.delete(`${api}/bff/secret-keys/:secretKeyId`, async ({ request, params }) => {
      await record(requests, request, String(params.secretKeyId));
      return failure ? problem(failure) : new HttpResponse(null, { status: 204 });
    }),
};
