import { pgSchema } from 'drizzle-orm/pg-core';

/** Every identity table lives in the `identity` Postgres schema; the api's live in `app`. */
export const identitySchema = pgSchema('identity');
