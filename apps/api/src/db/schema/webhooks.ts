import type { WebhookEventType } from '@meterway/contracts';
import { sql } from 'drizzle-orm';
import { check, foreignKey, index, integer, jsonb, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { organizations } from './people.js';

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/** Where an organisation's events go (issue #23); deleting one stamps `deletedAt`, so its deliveries keep it. */
export const webhookEndpoints = appSchema.table(
  'webhook_endpoints',
  {
    id: uuid('id').notNull(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    url: text('url').notNull(),
    events: text('events').array().$type<WebhookEventType[]>().notNull(),
    /** The signing secret (`whsec_…`), kept as given: each delivery is signed with it. */
    secret: text('secret').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    deletedAt: at('deleted_at'),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.id] }),
    index('webhook_endpoints_live')
      .on(table.organizationId, table.createdAt)
      .where(sql`${table.deletedAt} IS NULL`),
  ],
);

/** Something an organisation's endpoints may be told, inserted in the transaction of its cause (the outbox). */
export const webhookEvents = appSchema.table(
  'webhook_events',
  {
    /** `evt_…`, sent as the event's id and the Meterway-Event-Id header. */
    id: text('id').notNull(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    type: text('type').$type<WebhookEventType>().notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.id] }), index('webhook_events_organization').on(table.organizationId, table.createdAt)],
);

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * One event's delivery to one endpoint. Pending deliveries are due at `nextAttemptAt` (null once
 * done); a worker claims one by moving it past a lease and bumping `attemptCount`, and records the
 * outcome only if the count is still the one it claimed.
 */
export const webhookDeliveries = appSchema.table(
  'webhook_deliveries',
  {
    id: uuid('id').notNull(),
    /** Its event's (and endpoint's) organisation. */
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    eventId: text('event_id').notNull(),
    endpointId: uuid('endpoint_id').notNull(),
    status: text('status').$type<WebhookDeliveryStatus>().notNull().default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    nextAttemptAt: at('next_attempt_at'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.id] }),
    foreignKey({
      name: 'webhook_deliveries_event_fk',
      columns: [table.organizationId, table.eventId],
      foreignColumns: [webhookEvents.organizationId, webhookEvents.id],
    }),
    foreignKey({
      name: 'webhook_deliveries_endpoint_fk',
      columns: [table.organizationId, table.endpointId],
      foreignColumns: [webhookEndpoints.organizationId, webhookEndpoints.id],
    }),
    // Once per event and endpoint: both are the delivery's organisation's (the foreign keys), so the organisation adds no second copy.
    unique('webhook_deliveries_once').on(table.organizationId, table.eventId, table.endpointId),
    check('webhook_deliveries_status', sql`${table.status} IN ('pending', 'succeeded', 'failed')`),
    check('webhook_deliveries_pending_is_due', sql`(${table.status} = 'pending') = (${table.nextAttemptAt} IS NOT NULL)`),
    index('webhook_deliveries_due')
      .on(table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    index('webhook_deliveries_endpoint').on(table.organizationId, table.endpointId, table.createdAt),
  ],
);

/** One try at a delivery; only the latest few per delivery are kept. */
export const webhookAttempts = appSchema.table(
  'webhook_attempts',
  {
    id: uuid('id').notNull(),
    /** Its delivery's organisation. */
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    deliveryId: uuid('delivery_id').notNull(),
    at: at('at').notNull(),
    /** The endpoint's HTTP status; null when it gave none. */
    statusCode: integer('status_code'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.id] }),
    foreignKey({
      name: 'webhook_attempts_delivery_fk',
      columns: [table.organizationId, table.deliveryId],
      foreignColumns: [webhookDeliveries.organizationId, webhookDeliveries.id],
    }),
    index('webhook_attempts_delivery').on(table.organizationId, table.deliveryId, table.at),
  ],
);
