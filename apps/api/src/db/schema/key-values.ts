import { text, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';

/**
 * Every value a key ever had (a publishable key's value, a secret key's stored hash), and whose key
 * it is: how the gateway finds a key by the value presented alone, and what keeps values unique
 * across organisations (docs/scaling.md: a reference table, beside publishable_keys distributed by
 * organisation). Written only by app.record_key_values (functions/key-values.sql) as keys are
 * created and rolled; never deleted, so no value is ever used twice.
 */
export const keyValues = appSchema.table('key_values', {
  value: text('value').primaryKey(),
  organizationId: uuid('organization_id').notNull(),
  publishableKeyId: uuid('publishable_key_id').notNull(),
});
