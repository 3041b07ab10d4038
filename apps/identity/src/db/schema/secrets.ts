import { text } from 'drizzle-orm/pg-core';
import { identitySchema } from './identity-schema.js';

/**
 * The HMAC key for one-time codes when IDENTITY_SECRET is not set: made once, shared by every
 * instance on this database. Setting IDENTITY_SECRET keeps the key out of the database.
 */
export const secrets = identitySchema.table('secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
});
