import { randomBytes } from 'node:crypto';
import type { Database } from '@meterway/db';
import { eq } from 'drizzle-orm';
import { secrets } from '../../db/schema/index.js';

/**
 * The api's signing key (page tokens): API_SECRET when set; otherwise one made on first boot and
 * stored, so every instance and every restart on this database agree.
 */
export async function loadSecret(db: Database, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  await db.insert(secrets).values({ name: 'signing', value: randomBytes(32).toString('base64url') }).onConflictDoNothing();
  const [row] = await db.select().from(secrets).where(eq(secrets.name, 'signing')).limit(1);
  if (!row) throw new Error('the api secret could not be stored');
  return row.value;
}
