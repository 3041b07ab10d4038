import { text } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';

/** The key that signs page tokens when API_SECRET is not set; made once per database. */
export const secrets = appSchema.table('secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
});
