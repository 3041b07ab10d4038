import { primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { organizations } from './people.js';

/**
 * The directory of the provider's payment objects (Stripe's payment intents) recorded on a top-up or
 * an auto top-up charge: which organisation each is. A refund or dispute names only the charge's
 * payment intent, so it finds its organisation here, then the top-up by (organization_id,
 * payment_intent_id). Written in the transaction that records the intent (payment-objects.ts); its
 * key keeps an intent one organisation's. A reference table (distribution.ts): a few rows per
 * payment, read before the organisation is known.
 */
export const paymentObjects = appSchema.table(
  'payment_objects',
  {
    provider: text('provider').$type<'stripe' | 'sandbox'>().notNull(),
    id: text('id').notNull(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.provider, table.id] })],
);
