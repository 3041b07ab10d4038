import { randomUUID } from 'node:crypto';
import type { Role } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, asc, eq, TransactionRollbackError } from 'drizzle-orm';
import { memberships, organizations, persons } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { defaultOrganizationName } from './organization-name.js';

export type Viewer = {
  personId: string;
  identityId: string;
  email: string;
  /** The organisation the person works in now; every /bff route answers for it. */
  organizationId: string;
  organizationName: string;
  /** The person's role in that organisation. */
  role: Role;
  systemAdmin: boolean;
};

/** The person with their current organisation and their role in it (null when no longer a member of it). */
async function findViewer(db: Database, identityId: string) {
  const [row] = await db
    .select({ person: persons, organizationName: organizations.name, role: memberships.role })
    .from(persons)
    .innerJoin(organizations, eq(organizations.id, persons.organizationId))
    .leftJoin(memberships, and(eq(memberships.organizationId, persons.organizationId), eq(memberships.personId, persons.id)))
    .where(eq(persons.identityId, identityId))
    .limit(1);
  return row;
}

/** A new organisation owned by the person, in the caller's transaction. */
export async function createOwnedOrganization(tx: Database, input: { personId: string; name: string }) {
  const organizationId = randomUUID();
  await tx.insert(organizations).values({ id: organizationId, name: input.name });
  await tx.insert(memberships).values({ organizationId, personId: input.personId, role: 'owner' });
  return organizationId;
}

/**
 * Points a person who is no longer a member of their current organisation (removed, or left) at
 * the oldest one they still belong to, or at a new organisation of their own when none is left,
 * as on their first sign-in; in the caller's transaction. Answers the organisation's id.
 */
export async function moveToAnotherOrganization(tx: Database, person: { id: string; email: string }): Promise<string> {
  const [membership] = await tx
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .where(eq(memberships.personId, person.id))
    .orderBy(asc(memberships.createdAt), asc(memberships.organizationId))
    .limit(1);
  const organizationId =
    membership?.organizationId ?? (await createOwnedOrganization(tx, { personId: person.id, name: defaultOrganizationName(person.email) }));
  await tx.update(persons).set({ organizationId }).where(eq(persons.id, person.id));
  return organizationId;
}

/**
 * The person behind an identity, created with an organisation they own on first sight. Concurrent
 * first requests race on the unique identity index: one insert wins, the others roll back their
 * organisation and read the winner. The e-mail follows identity's traits.
 */
export async function ensurePerson(db: Database, input: { identityId: string; email: string; systemAdminEmails: readonly string[] }): Promise<Viewer> {
  let row = await findViewer(db, input.identityId);
  if (!row) {
    await db
      .transaction(async (tx) => {
        const personId = randomUUID();
        const organizationId = randomUUID();
        await tx.insert(organizations).values({ id: organizationId, name: defaultOrganizationName(input.email) });
        const inserted = await tx
          .insert(persons)
          .values({ id: personId, identityId: input.identityId, email: input.email, organizationId })
          .onConflictDoNothing({ target: persons.identityId })
          .returning({ id: persons.id });
        if (inserted.length === 0) tx.rollback();
        await tx.insert(memberships).values({ organizationId, personId, role: 'owner' });
      })
      .catch((error: unknown) => {
        // drizzle signals tx.rollback() with an error; the other request created the person.
        if (!(error instanceof TransactionRollbackError)) throw error;
      });
    row = await findViewer(db, input.identityId);
    if (!row) throw new Error(`person for identity ${input.identityId} was not provisioned`);
  }
  if (row.role === null) {
    const person = row.person;
    await db.transaction((tx) => moveToAnotherOrganization(tx, person));
    row = await findViewer(db, input.identityId);
    if (!row?.role) throw new Error(`person for identity ${input.identityId} has no organisation`);
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
    role: row.role,
    systemAdmin: row.person.systemAdmin || input.systemAdminEmails.includes(input.email.toLowerCase()),
  };
}

/**
 * The viewer acting in the organisation a console tab names (issue #53: each tab keeps the one it
 * shows): their role there, if they are a member; the same viewer when it names their current one.
 * A tab naming an organisation the person is not (or no longer) a member of is refused, with what
 * the console tells them.
 */
export async function inNamedOrganization(db: Database, viewer: Viewer, organizationId: string): Promise<Viewer> {
  if (organizationId === viewer.organizationId) return viewer;
  const [membership] = await db
    .select({ role: memberships.role, organizationName: organizations.name })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.personId, viewer.personId)));
  if (!membership) {
    throw new AppError(
      'Conflict',
      `You are no longer a member of the organisation this tab was showing, so it did nothing there. It now shows ${viewer.organizationName}.`,
      { code: 'OrganizationLeft', organizationId },
    );
  }
  return { ...viewer, organizationId, organizationName: membership.organizationName, role: membership.role };
}
