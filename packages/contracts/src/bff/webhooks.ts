import { z } from 'zod';

/**
 * What an organisation's endpoints can be told (issue #23): the balance fell below the low-balance
 * alert, a key crossed 50, 80 or 100 % of its budget, credit was added (any entry that adds credit,
 * grants included), an auto top-up charge failed, a key's owner blocked a caller.
 */
export const webhookEventTypes = ['balance.low', 'key.budget_threshold', 'credit.added', 'auto_top_up.failed', 'key.blocked_caller'] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** The most endpoints one organisation may register. */
export const maxWebhookEndpoints = 10;

/** The header each delivery is signed in: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export const webhookSignatureHeader = 'Meterway-Signature';

/** How old a delivery's timestamp may be when the receiver checks it (the replay window the docs advise), in seconds. */
export const webhookToleranceSeconds = 300;

/** POST /bff/webhook-endpoints: where to send which events. The api checks the URL further (https and a public address in production). */
export const webhookEndpointInputSchema = z.object({
  url: z
    .string({ error: 'Enter the URL of your endpoint' })
    .trim()
    .min(1, 'Enter the URL of your endpoint')
    .max(2048, 'The URL is too long (at most 2048 characters)')
    .refine((value) => URL.canParse(value) && ['https:', 'http:'].includes(new URL(value).protocol), 'Enter an https:// URL'),
  events: z
    .array(z.enum(webhookEventTypes, { error: `Each event must be one of ${webhookEventTypes.join(', ')}` }), { error: 'Choose the events to send' })
    .min(1, 'Choose at least one event')
    .transform((events) => [...new Set(events)]),
});

export type WebhookEndpointInput = z.input<typeof webhookEndpointInputSchema>;

export const webhookEndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(webhookEventTypes)),
  createdAt: z.string(),
  /** The signing secret (`whsec_…`), only in the answer to create: keep it to verify deliveries. */
  secret: z.string().optional(),
});

export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

export const webhookEndpointListSchema = z.object({ webhookEndpoints: z.array(webhookEndpointSchema) });
export const webhookEndpointParamsSchema = z.object({ webhookEndpointId: z.uuid({ error: 'Unknown webhook endpoint' }) });

/** One try at delivering an event: when, and what the endpoint answered (its HTTP status, or why there was none). */
export const webhookAttemptSchema = z.object({
  at: z.string(),
  /** The endpoint's HTTP status; null when it gave none (timeout, refused connection). */
  statusCode: z.number().int().nullable(),
  /** Why the attempt failed, when it did. */
  error: z.string().nullable(),
  durationMs: z.number().int(),
});

/**
 * One event's delivery to the endpoint: pending (retried with backoff for 24 hours), succeeded (a
 * 2xx answer) or failed (gave up), with its latest attempts, newest first.
 */
export const webhookDeliverySchema = z.object({
  id: z.string(),
  eventId: z.string(),
  type: z.enum(webhookEventTypes),
  createdAt: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attemptCount: z.number().int(),
  /** When the next attempt is due, while pending. */
  nextAttemptAt: z.string().nullable(),
  attempts: z.array(webhookAttemptSchema),
});

export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

/** GET /bff/webhook-endpoints/{webhookEndpointId}/deliveries: the endpoint's latest deliveries, newest first. */
export const webhookDeliveryListSchema = z.object({ deliveries: z.array(webhookDeliverySchema) });

/** What each delivery POSTs: the event. `data` depends on the type (documented on /docs). */
export const webhookEventSchema = z.object({
  id: z.string(),
  type: z.enum(webhookEventTypes),
  createdAt: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export type WebhookEvent = z.infer<typeof webhookEventSchema>;
