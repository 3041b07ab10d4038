import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { eq, TransactionRollbackError } from 'drizzle-orm';
import { organizations, persons } from '../../db/schema/index.js';
import { defaultOrganizationName } from './organization-name.js';

export type Viewer = {
  personId: string;
  identityId: string;
  email: string;
  organizationId: string;
  organizationName: string;
  systemAdmin: boolean;
};

async function findViewer(db: Database, identityId: string) {
  const [row] = await db
    .select({ person: persons, organizationName: organizations.name })
    .from(persons)
    .innerJoin(organizations, eq(organizations.id, persons.organizationId))
    .where(eq(persons.identityId, identityId))
    .limit(1);
  return row;
}

/**
 * The person behind an identity, created with an organisation on first sight. Concurrent first
 * requests race on the unique identity index: one insert wins, the others roll back their
 * organisation and read the winner. The e-mail follows identity's traits.
 */
export async function ensurePerson(db: Database, input: { identityId: string; email: string; systemAdminEmails: readonly string[] }): Promise<Viewer> {
  let row = await findViewer(db, input.identityId);
  if (!row) {
    await db
      .transaction(async (tx) => {
        const organizationId = randomUUID();
        await tx.insert(organizations).values({ id: organizationId, name: defaultOrganizationName(input.email) });
        const inserted = await tx
          .insert(persons)
          .values({ id: randomUUID(), identityId: input.identityId, email: input.email, organizationId })
          .onConflictDoNothing({ target: persons.identityId })
          .returning({ id: persons.id });
        if (inserted.length === 0) tx.rollback();
      })
      .catch((error: unknown) => {
        // drizzle signals tx.rollback() with an error; the other request created the person.
        if (!(error instanceof TransactionRollbackError)) throw error;
      });
    row = await findViewer(db, input.identityId);
    if (!row) throw new Error(`person for identity ${input.identityId} was not provisioned`);
  }
  if (row.person.email !== input.email) {
    await db.update(persons).set({ email: input.email }).where(eq(persons.id, row.person.id));
  }
  return {
    personId: row.person.id,
    identityId: input.identityId,
    email: input.email,
    organizationId: row.person.organizationId,
    organizationName: row.organizationName,
    systemAdmin: row.person.systemAdmin || input.systemAdminEmails.includes(input.email.toLowerCase()),
  };
}
