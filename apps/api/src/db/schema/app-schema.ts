import { pgSchema } from 'drizzle-orm/pg-core';

/** Every api table lives in the `app` Postgres schema; identity's live in `identity`. */
export const appSchema = pgSchema('app');
