import { integer, text, timestamp } from 'drizzle-orm/pg-core';
import { identitySchema } from './identity-schema.js';

/** Fixed-window counters shared by every instance: key = what is limited (ip:…, identifier:…). */
export const rateLimits = identitySchema.table('rate_limits', {
  key: text('key').primaryKey(),
  windowStart: timestamp('window_start', { withTimezone: true, precision: 3 }).notNull(),
  count: integer('count').notNull(),
});
