import type { WebhookDelivery, WebhookEndpoint } from '@meterway/contracts';
import { HttpResponse, http } from 'msw';
import { problem, type RecordedRequest } from './keys-handlers';
import { testRuntimeConfig } from './runtime-config';

/**
 * MSW handlers for the webhooks page (issue #23): typed factories, and a handler per route. A
 * mutation given a `requests` array records there the id from the path and the JSON body;
 * `failure` answers that status as problem details instead.
 */

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

/** An endpoint as the list answers it: no secret. */
export const buildWebhookEndpoint = (overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id: '8c6a4e2f-0d1b-4c3e-9f5a-7b9d1f3a5c7e',
  url: 'https://hooks.example.com/meterway',
  events: ['balance.low', 'credit.added'],
  createdAt: '2026-11-24T09:30:00.000Z',
  ...overrides,
});

export const buildWebhookDelivery = (overrides: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: '1f3a5c7e-9b1d-4f3a-8c5e-7a9b1d3f5a7c',
  eventId: '7e9a1c3e-5b7d-4f9a-9c1e-3a5c7e9a1b3d',
  type: 'credit.added',
  createdAt: '2026-11-25T10:00:00.000Z',
  status: 'succeeded',
  attemptCount: 1,
  nextAttemptAt: null,
  attempts: [{ at: '2026-11-25T10:00:01.000Z', statusCode: 200, error: null, durationMs: 84 }],
  ...overrides,
});

type MutationOptions = { requests?: RecordedRequest[]; failure?: number };

const record = async (requests: RecordedRequest[] | undefined, request: Request, id?: string) => {
  const text = await request.clone().text();
  requests?.push({ ...(id ? { id } : {}), ...(text ? { body: JSON.parse(text) as unknown } : {}) });
};

export const webhooksHandlers = {
  /** GET /bff/webhook-endpoints; each call answers the next of `answers` (the last one again once they run out). */
  list: (answers: WebhookEndpoint[] | WebhookEndpoint[][] = []) => {
    const lists = (answers.length > 0 && Array.isArray(answers[0]) ? answers : [answers]) as WebhookEndpoint[][];
    let call = 0;
    return http.get(`${api}/bff/webhook-endpoints`, () => HttpResponse.json({ webhookEndpoints: lists[Math.min(call++, lists.length - 1)] }));
  },
  listFailure: (status = 500) => http.get(`${api}/bff/webhook-endpoints`, () => problem(status)),

  /** POST /bff/webhook-endpoints: 201 with `created` (its secret included). */
  create: (created: WebhookEndpoint, { requests, failure }: MutationOptions = {}) =>
    http.post(`${api}/bff/webhook-endpoints`, async ({ request }) => {
      await record(requests, request);
      return failure ? problem(failure) : HttpResponse.json(created, { status: 201 });
    }),

  /** DELETE /bff/webhook-endpoints/:id: 204. */
  remove: ({ requests, failure }: MutationOptions = {}) =>
    http.delete(`${api}/bff/webhook-endpoints/:webhookEndpointId`, async ({ request, params }) => {
      await record(requests, request, String(params.webhookEndpointId));
      return failure ? problem(failure) : new HttpResponse(null, { status: 204 });
    }),

  /** GET /bff/webhook-endpoints/:id/deliveries; `asked` collects the endpoint ids. */
  deliveries: (deliveries: WebhookDelivery[] = [], { asked }: { asked?: string[] } = {}) =>
    http.get(`${api}/bff/webhook-endpoints/:webhookEndpointId/deliveries`, ({ params }) => {
      asked?.push(String(params.webhookEndpointId));
      return HttpResponse.json({ deliveries });
    }),
};
