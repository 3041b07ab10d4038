import type { Database } from '@meterway/db';
import { and, eq, ne, sql } from 'drizzle-orm';
import { persons } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';

export type SystemAdminChange = { email: string; systemAdmin: boolean; changed: boolean };

/**
 * Sets or clears the stored system-admin flag of the person with this e-mail (any case), for the
 * operator CLI. A person row exists only after a first console sign-in, so an unknown address is
 * an error rather than a promise for later; SYSTEM_ADMIN_EMAILS covers people not yet signed in.
 */
export async function setSystemAdmin(db: Database, email: string, admin: boolean): Promise<SystemAdminChange> {
  const sameEmail = eq(sql`lower(${persons.email})`, email.trim().toLowerCase());
  const updated = await db
    .update(persons)
    .set({ systemAdmin: admin })
    .where(and(sameEmail, ne(persons.systemAdmin, admin)))
    .returning({ email: persons.email });
  const [row] = updated.length ? updated : await db.select({ email: persons.email }).from(persons).where(sameEmail).limit(1);
  if (!row) {
    throw new AppError('NotFound', `No person with the e-mail ${email} has signed in yet; a person exists after their first sign-in to the console.`);
  }
  return { email: row.email, systemAdmin: admin, changed: updated.length > 0 };
}
