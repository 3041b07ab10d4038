import type { AuditEntry, ChatCompletion, CreditHistoryEntry, Feedback, Person } from '@meterway/contracts';
import { HttpResponse, http } from 'msw';
import { testRuntimeConfig } from './runtime-config';

/**
 * The list endpoints for route tests: typed factories and one handler per list. A handler answers
 * a fixed page, or asks `answer` with the request's query so a test can page by token and see
 * what was sent.
 */

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

export type Page<Item> = { items: Item[]; pagination: { nextPageToken: string | null; previousPageToken: string | null } };

export const pageOf = <Item>(items: Item[], pagination: Partial<Page<Item>['pagination']> = {}): Page<Item> => ({
  items,
  pagination: { nextPageToken: null, previousPageToken: null, ...pagination },
});

export const buildChatCompletion = (overrides: Partial<ChatCompletion> = {}): ChatCompletion => ({
  id: 'chatcmpl-7f3a9c2e',
  createdAt: '2026-03-14T21:05:09.000Z',
  model: 'meterway-demo',
  publishableKeyId: '3a7c1a52-1f0e-4d5e-9a51-2f3c4b5d6e7f',
  secretKeyId: null,
  provider: 'demo',
  cacheHit: false,
  estimatedInputTokens: 1300,
  inputTokens: 1234,
  estimatedInputCost: 0.00065,
  inputCost: 0.000617,
  outputTokens: 82,
  outputCost: 0.000123,
  totalCost: 0.00074,
  endUser: null,
  clientNetwork: null,
  ...overrides,
});

export const buildPerson = (overrides: Partial<Person> = {}): Person => ({
  id: '0b9e2c1d-6a4f-4e8b-9c3d-1e2f3a4b5c6d',
  email: 'grace@example.com',
  createdAt: '2026-01-02T07:08:09.000Z',
  owedAmount: 0,
  organizations: [{ organizationId: '6d5e4f3a-2b1c-4d0e-9f8a-7b6c5d4e3f2a', organizationName: 'Compilers Inc', role: 'owner' }],
  ...overrides,
});

export const buildFeedback = (overrides: Partial<Feedback> = {}): Feedback => ({
  id: '5c4d3e2f-1a0b-4c9d-8e7f-6a5b4c3d2e1f',
  fromEmail: 'grace@example.com',
  type: 'feature_request',
  description: 'Please add a CSV export.',
  ...overrides,
});

export const buildAuditEntry = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  id: '4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d',
  createdAt: '2026-11-24T09:30:00.000Z',
  actorEmail: 'ada@example.com',
  action: 'key.updated',
  target: 'Web app',
  changes: { spendLimitAmount: { from: 10, to: 25 } },
  ...overrides,
});

export const buildCreditHistoryEntry = (overrides: Partial<CreditHistoryEntry> = {}): CreditHistoryEntry => ({
  id: '7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b',
  createdAt: '2026-11-24T09:30:00.000Z',
  kind: 'top_up',
  amount: 25,
  balanceAfter: 37.5,
  note: null,
  expiresAt: null,
  receiptUrl: 'https://pay.example.com/receipts/rcpt_1',
  ...overrides,
});

type Answer<Item> = Page<Item> | Response | ((query: URLSearchParams) => Page<Item> | Response | Promise<Page<Item> | Response>);

const list =
  <Item>(path: string) =>
  (answer: Answer<Item>) =>
    http.get(`${api}${path}`, async ({ request }) => {
      const result = typeof answer === 'function' ? await answer(new URL(request.url).searchParams) : answer;
      return result instanceof Response ? result : HttpResponse.json(result);
    });

/** The api's problem details for a failed call (application/problem+json). */
export const problem = (status: number) =>
  HttpResponse.json(
    { type: 'about:blank', title: `Status ${status}`, status, code: status === 403 ? 'Forbidden' : undefined },
    {
      status,
      headers: { 'Content-Type': 'application/problem+json' },
    },
  );

/** The api's 400 for a page token it did not sign for this list, order and filter. */
export const refusedPageToken = (field: 'nextPageToken' | 'previousPageToken' = 'nextPageToken') =>
  HttpResponse.json(
    {
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: 'Invalid page token.',
      code: 'BadRequest',
      errors: [{ field, message: 'Invalid page token.' }],
    },
    { status: 400, headers: { 'Content-Type': 'application/problem+json' } },
  );

export const listsHandlers = {
  chatCompletions: list<ChatCompletion>('/bff/chat-completions'),
  persons: list<Person>('/admin/persons'),
  feedback: list<Feedback>('/admin/feedback'),
  auditLog: list<AuditEntry>('/bff/audit-log'),
  creditHistory: list<CreditHistoryEntry>('/bff/credit-history'),
};
