import { eq } from 'drizzle-orm';
import { type PgSchema, text } from 'drizzle-orm/pg-core';
import type { Database } from './create-db.js';

/**
 * The table of keys a service makes for itself when none is configured, one row per key name. Each
 * service has its own, in its own schema, created by that service's migrations.
 */
export const secretsTable = (schema: PgSchema) =>
  schema.table('secrets', {
    name: text('name').primaryKey(),
    value: text('value').notNull(),
  });

export type SecretsTable = ReturnType<typeof secretsTable>;

/**
 * The configured key when set; otherwise the one stored under `name`, made by `generate` on first
 * boot. The first writer wins (insert … on conflict do nothing, then read), so every instance and
 * every restart on this database agree.
 */
export async function loadStoredSecret(
  db: Database,
  secret: { table: SecretsTable; name: string; configured: string | undefined; generate: () => string; service: string },
): Promise<string> {
  if (secret.configured) return secret.configured;
  const { table, name } = secret;
  await db.insert(table).values({ name, value: secret.generate() }).onConflictDoNothing();
  const [row] = await db.select().from(table).where(eq(table.name, name)).limit(1);
  if (!row) throw new Error(`the ${secret.service} secret could not be stored`);
  return row.value;
}
