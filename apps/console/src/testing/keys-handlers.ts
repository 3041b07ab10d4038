import type { KeyBlock, KeyCallers, PricedModel, Problem, PublishableKey } from '@meterway/contracts';
import { HttpResponse, http } from 'msw';
import { testRuntimeConfig } from './runtime-config';

/**
 * MSW handlers for the dashboard: publishable keys, the priced models a key may be allowed, a key's
 * blocked addresses and end users, its callers of the last 24 hours, the key-deletion feedback and
 * the invoices portal. A mutation handler given a `requests` array
 * records there what it received (the key id from the path and the JSON body), for tests that
 * assert what was sent. `failure` answers that status as problem details instead.
 */

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

/** What a mutation handler received: the id from the path, the JSON body, the query string (`?keys=delete`). */
export type RecordedRequest = { id?: string; body?: unknown; search?: string };

export const buildPublishableKey = (overrides: Partial<PublishableKey> = {}): PublishableKey => ({
  id: '6f1d2c3b-4a59-4e68-8d7c-1b2a3c4d5e6f',
  name: 'Web app',
  value: 'pk_live_4fQx9LmN2pR7sT1vW3yZ8aB6cD0eF5gH',
  spendLimitAmount: 10,
  spendLimitPeriodType: 'monthly',
  currentPeriodSpendAmount: 0.42,
  allowedOrigins: ['https://app.example.com'],
  allowedModels: null,
  maxOutputTokensPerCall: null,
  perClientLimits: { requestsPerMinute: 30, spendPerDay: 1 },
  perEndUserLimits: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null },
  endUserTokens: null,
  responseCacheSeconds: null,
  responseCacheShared: false,
  worstCaseDailySpend: 9.58,
  madeBy: { personId: '7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918', email: 'ada@example.com', role: 'owner' },
  ...overrides,
});

/** The priced models of GET /bff/models, as the key form lists them. */
export const pricedModels: PricedModel[] = [
  { id: 'gpt-4o-mini', inputPerMillion: 0.165, cachedInputPerMillion: 0.0825, outputPerMillion: 0.66, maxOutputTokens: 16_384, acceptsImages: true },
  { id: 'claude-haiku', inputPerMillion: 0.88, cachedInputPerMillion: 0.088, outputPerMillion: 4.4, maxOutputTokens: 8192, acceptsImages: true },
  { id: 'demo-echo', inputPerMillion: 0.11, cachedInputPerMillion: null, outputPerMillion: 0.22, maxOutputTokens: 4096, acceptsImages: false },
];

/** The price list version GET /bff/models answers with. */
export const priceListVersion = '2026-11-25';

export const buildKeyBlock = (overrides: Partial<KeyBlock> = {}): KeyBlock => ({
  id: '3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a',
  clientAddress: '203.0.113.7',
  createdAt: '2026-11-24T09:30:00.000Z',
  ...overrides,
});

/** GET …/callers: by default none in the last 24 hours. */
export const buildKeyCallers = (overrides: Partial<KeyCallers> = {}): KeyCallers => ({
  since: '2026-11-23T10:00:00.000Z',
  clientAddresses: [],
  endUsers: [],
  ...overrides,
});

/** The api's problem details (application/problem+json); `details` adds a detail, field errors or a code. */
export const problem = (status: number, details: Partial<Problem> = {}) =>
  HttpResponse.json(
    { type: 'about:blank', title: `Status ${status}`, status, detail: `Status ${status}`, ...details },
    { status, headers: { 'Content-Type': 'application/problem+json' } },
  );

const record = async (requests: RecordedRequest[] | undefined, request: Request, id?: string) => {
  const text = await request.clone().text();
  requests?.push({ ...(id ? { id } : {}), ...(text ? { body: JSON.parse(text) as unknown } : {}) });
};

type MutationOptions = { requests?: RecordedRequest[]; failure?: number };

export const keysHandlers = {
  /**
   * GET /bff/publishable-keys. Each call answers the next list of `answers` (the last one again
   * once they run out), so a test sees the list change after a mutation. `until` holds the
   * answer back until it resolves, for the loading state.
   */
  list: (answers: PublishableKey[] | PublishableKey[][], { until }: { until?: Promise<unknown> } = {}) => {
    const lists = (answers.length > 0 && Array.isArray(answers[0]) ? answers : [answers]) as PublishableKey[][];
    let call = 0;
    return http.get(`${api}/bff/publishable-keys`, async () => {
      await until;
      const publishableKeys = lists[Math.min(call++, lists.length - 1)];
      return HttpResponse.json({ publishableKeys });
    });
  },
  listFailure: (status = 500) => http.get(`${api}/bff/publishable-keys`, () => problem(status)),

  /** GET /bff/models (the price list version and its models); `until` holds the answer back until it resolves, for the loading state. */
  models: (models: PricedModel[] = pricedModels, { until }: { until?: Promise<unknown> } = {}) =>
    http.get(`${api}/bff/models`, async () => {
      await until;
      return HttpResponse.json({ priceListVersion, models });
    }),
  modelsFailure: (status = 500) => http.get(`${api}/bff/models`, () => problem(status)),

  /** POST /bff/publishable-keys: 201 with `created`. */
  create: (created: PublishableKey, { requests, failure }: MutationOptions = {}) =>
    http.post(`${api}/bff/publishable-keys`, async ({ request }) => {
      await record(requests, request);
      return failure ? problem(failure) : HttpResponse.json(created, { status: 201 });
    }),

  /** PUT /bff/publishable-keys/:id: 204. */
  update: ({ requests, failure }: MutationOptions = {}) =>
    http.put(`${api}/bff/publishable-keys/:publishableKeyId`, async ({ request, params }) => {
      await record(requests, request, String(params.publishableKeyId));
      return failure ? problem(failure) : new HttpResponse(null, { status: 204 });
    }),

  /** POST /bff/publishable-keys/:id/roll: 200 with `rolled`. */
  roll: (rolled: PublishableKey, { requests, failure }: MutationOptions = {}) =>
    http.post(`${api}/bff/publishable-keys/:publishableKeyId/roll`, async ({ request, params }) => {
      await record(requests, request, String(params.publishableKeyId));
      return failure ? problem(failure) : HttpResponse.json(rolled);
    }),

  /** DELETE /bff/publishable-keys/:id: 204. */
  remove: ({ requests, failure }: MutationOptions = {}) =>
    http.delete(`${api}/bff/publishable-keys/:publishableKeyId`, async ({ request, params }) => {
      await record(requests, request, String(params.publishableKeyId));
      return failure ? problem(failure) : new HttpResponse(null, { status: 204 });
    }),

  /**
   * GET /bff/publishable-keys/:id/blocks. Like `list`, each call answers the next list of
   * `answers` (the last one again once they run out), so a test sees a block or unblock land.
   */
  blocks: (answers: KeyBlock[] | KeyBlock[][] = [], { failure }: { failure?: number } = {}) => {
    const lists = (answers.length > 0 && Array.isArray(answers[0]) ? answers : [answers]) as KeyBlock[][];
    let call = 0;
    return http.get(`${api}/bff/publishable-keys/:publishableKeyId/blocks`, () =>
      failure ? problem(failure) : HttpResponse.json({ blocks: lists[Math.min(call++, lists.length - 1)] }),
    );
  },

  /** GET /bff/publishable-keys/:id/callers; like `blocks`, each call answers the next of `answers`. */
  callers: (answers: KeyCallers | KeyCallers[] = buildKeyCallers(), { failure }: { failure?: number } = {}) => {
    const lists = Array.isArray(answers) ? answers : [answers];
    let call = 0;
    return http.get(`${api}/bff/publishable-keys/:publishableKeyId/callers`, () =>
      failure ? problem(failure) : HttpResponse.json(lists[Math.min(call++, lists.length - 1)]),
    );
  },

  /** POST /bff/publishable-keys/:id/blocks: 201 with `created`; `refusal` adds to the failure's problem details. */
  block: (created: KeyBlock, { requests, failure, refusal }: MutationOptions & { refusal?: Partial<Problem> } = {}) =>
    http.post(`${api}/bff/publishable-keys/:publishableKeyId/blocks`, async ({ request, params }) => {
      await record(requests, request, String(params.publishableKeyId));
      return failure ? problem(failure, refusal) : HttpResponse.json(created, { status: 201 });
    }),

  /** DELETE /bff/publishable-keys/:id/blocks/:blockId: 204; records the block's id. */
  unblock: ({ requests, failure }: MutationOptions = {}) =>
    http.delete(`${api}/bff/publishable-keys/:publishableKeyId/blocks/:blockId`, async ({ request, params }) => {
      await record(requests, request, String(params.blockId));
      return failure ? problem(failure) : new HttpResponse(null, { status: 204 });
    }),

  /** POST /bff/feedback: 201 with the new entry's id. */
  feedback: ({ requests, failure }: MutationOptions = {}) =>
    http.post(`${api}/bff/feedback`, async ({ request }) => {
      await record(requests, request);
      return failure ? problem(failure) : HttpResponse.json({ id: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a' }, { status: 201 });
    }),

  /** POST /bff/stripe/customer-portal-session: the portal's URL. */
  customerPortal: ({ requests, failure, url = 'https://billing.example.com/portal/session_123' }: MutationOptions & { url?: string } = {}) =>
    http.post(`${api}/bff/stripe/customer-portal-session`, async ({ request }) => {
      await record(requests, request);
      return failure ? problem(failure) : HttpResponse.json({ url });
    }),
};
