import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, eq, sql } from 'drizzle-orm';
import { credentials, identities, recoveryAddresses, verifiableAddresses } from '../db/schema/identities.js';

export type Identity = typeof identities.$inferSelect;

/** Addresses are stored and looked up trimmed, lower-cased and NFKC-normalised, as Kratos does. */
export const normalizeEmail = (email: string) => email.normalize('NFKC').trim().toLowerCase();

export async function emailTaken(db: Database, email: string): Promise<boolean> {
  const [row] = await db
    .select({ id: credentials.identityId })
    .from(credentials)
    .where(and(eq(credentials.type, 'password'), eq(credentials.identifier, email)))
    .limit(1);
  return Boolean(row);
}

/** Creates the identity with its password, an unverified address and a recovery address. */
export async function createIdentity(db: Database, input: { email: string; hashedPassword: string; now: Date }): Promise<Identity> {
  return db.transaction(async (tx) => {
    const id = randomUUID();
    const [identity] = await tx
      .insert(identities)
      .values({ id, traits: { email: input.email }, createdAt: input.now, updatedAt: input.now, stateChangedAt: input.now })
      .returning();
    await tx.insert(credentials).values({
      identityId: id,
      type: 'password',
      identifier: input.email,
      config: { hashedPassword: input.hashedPassword },
      createdAt: input.now,
      updatedAt: input.now,
    });
    await tx.insert(verifiableAddresses).values({ id: randomUUID(), identityId: id, value: input.email, createdAt: input.now, updatedAt: input.now });
    await tx.insert(recoveryAddresses).values({ id: randomUUID(), identityId: id, value: input.email, createdAt: input.now, updatedAt: input.now });
    if (!identity) throw new Error('identity insert returned nothing');
    return identity;
  });
}

export async function findPasswordCredential(db: Database, email: string) {
  const [row] = await db
    .select({ identityId: credentials.identityId, config: credentials.config, state: identities.state })
    .from(credentials)
    .innerJoin(identities, eq(identities.id, credentials.identityId))
    .where(and(eq(credentials.type, 'password'), eq(credentials.identifier, email)))
    .limit(1);
  return row;
}

export async function findCredential(db: Database, identityId: string, type: 'password' | 'totp') {
  const [row] = await db
    .select()
    .from(credentials)
    .where(and(eq(credentials.identityId, identityId), eq(credentials.type, type)))
    .limit(1);
  return row;
}

export async function hasTotp(db: Database, identityId: string): Promise<boolean> {
  return Boolean(await findCredential(db, identityId, 'totp'));
}

export async function findAddress(db: Database, email: string) {
  const [row] = await db.select().from(verifiableAddresses).where(eq(verifiableAddresses.value, email)).limit(1);
  return row;
}

export async function markAddressSent(db: Database, addressId: string, now: Date) {
  await db
    .update(verifiableAddresses)
    .set({ status: 'sent', updatedAt: now })
    .where(and(eq(verifiableAddresses.id, addressId), eq(verifiableAddresses.verified, false)));
}

export async function markAddressVerified(db: Database, email: string, now: Date) {
  await db
    .update(verifiableAddresses)
    .set({ verified: true, status: 'completed', verifiedAt: now, updatedAt: now })
    .where(and(eq(verifiableAddresses.value, email), eq(verifiableAddresses.verified, false)));
}

type AddressRow = {
  id: string;
  value: string;
  via: string;
  verified?: boolean;
  status?: string;
  verified_at?: string | null;
  created_at: string;
  updated_at: string;
};

const iso = (value: string) => new Date(value).toISOString();

/**
 * The identity as whoami and flows show it (§11.1), and whether it has a second factor, in one
 * query: whoami runs on every console request. Credentials are never exposed.
 */
export async function loadIdentityView(db: Database, identityId: string, publicUrl: string) {
  const [row] = await db
    .select({
      identity: identities,
      verifiable: sql<
        AddressRow[]
      >`coalesce((select json_agg(v order by v.created_at) from ${verifiableAddresses} v where v.identity_id = ${identities}.id), '[]'::json)`,
      recovery: sql<
        AddressRow[]
      >`coalesce((select json_agg(r order by r.created_at) from ${recoveryAddresses} r where r.identity_id = ${identities}.id), '[]'::json)`,
      hasTotp: sql<boolean>`exists (select 1 from ${credentials} c where c.identity_id = ${identities}.id and c.type = 'totp')`,
    })
    .from(identities)
    .where(eq(identities.id, identityId))
    .limit(1);
  if (!row) throw new Error(`identity ${identityId} not found`);
  const { identity } = row;
  return {
    hasTotp: Boolean(row.hasTotp),
    identity: {
      id: identity.id,
      schema_id: identity.schemaId,
      schema_url: `${publicUrl}/schemas/${Buffer.from(identity.schemaId).toString('base64url')}`,
      state: identity.state,
      ...(identity.stateChangedAt ? { state_changed_at: identity.stateChangedAt.toISOString() } : {}),
      traits: identity.traits,
      verifiable_addresses: row.verifiable.map((address) => ({
        id: address.id,
        value: address.value,
        verified: Boolean(address.verified),
        via: address.via,
        status: address.status,
        ...(address.verified_at ? { verified_at: iso(address.verified_at) } : {}),
        created_at: iso(address.created_at),
        updated_at: iso(address.updated_at),
      })),
      recovery_addresses: row.recovery.map((address) => ({
        id: address.id,
        value: address.value,
        via: address.via,
        created_at: iso(address.created_at),
        updated_at: iso(address.updated_at),
      })),
      metadata_public: null,
      created_at: identity.createdAt.toISOString(),
      updated_at: identity.updatedAt.toISOString(),
    },
  };
}

export type IdentityView = Awaited<ReturnType<typeof loadIdentityView>>;

export async function serializeIdentity(db: Database, identityId: string, publicUrl: string) {
  return (await loadIdentityView(db, identityId, publicUrl)).identity;
}
