import type { Database } from '@meterway/db';
import { eq } from 'drizzle-orm';
import { secrets } from '../db/schema/secrets.js';
import { randomAlphanumeric } from './tokens.js';

/**
 * The HMAC key: IDENTITY_SECRET when set; otherwise one made on first boot and stored, so every
 * instance and every restart on this database agree.
 */
export async function loadSecret(db: Database, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  await db.insert(secrets).values({ name: 'hmac', value: randomAlphanumeric(48) }).onConflictDoNothing();
  const [row] = await db.select().from(secrets).where(eq(secrets.name, 'hmac')).limit(1);
  if (!row) throw new Error('the identity secret could not be stored');
  return row.value;
}
