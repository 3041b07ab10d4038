import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import { credentials, identities, recoveryAddresses, verifiableAddresses } from '../db/schema/identities.js';

/** A new e-mail replaces the login identifier and both addresses; the new address starts unverified. */
export async function changeEmail(db: Database, identityId: string, email: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(identities).set({ traits: { email }, updatedAt: now }).where(eq(identities.id, identityId));
    await tx
      .update(credentials)
      .set({ identifier: email, updatedAt: now })
      .where(and(eq(credentials.identityId, identityId), eq(credentials.type, 'password')));
    await tx.delete(verifiableAddresses).where(eq(verifiableAddresses.identityId, identityId));
    await tx.insert(verifiableAddresses).values({ id: randomUUID(), identityId, value: email, createdAt: now, updatedAt: now });
    await tx.update(recoveryAddresses).set({ value: email, updatedAt: now }).where(eq(recoveryAddresses.identityId, identityId));
  });
}

export async function setPasswordHash(db: Database, identityId: string, hashedPassword: string, now: Date): Promise<void> {
  await db
    .update(credentials)
    .set({ config: { hashedPassword }, updatedAt: now })
    .where(and(eq(credentials.identityId, identityId), eq(credentials.type, 'password')));
}

/** Links an authenticator; the code that proved it (of `step`) is spent. */
export async function linkTotp(db: Database, identityId: string, secret: string, step: number, now: Date): Promise<void> {
  await db
    .insert(credentials)
    .values({ identityId, type: 'totp', identifier: identityId, config: { totpSecret: secret }, lastUsedStep: step, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: [credentials.identityId, credentials.type], set: { config: { totpSecret: secret }, lastUsedStep: step, updatedAt: now } });
}

/**
 * Spends a TOTP code's time step: true when no code of this step or a later one was used before.
 * One conditional UPDATE, so two requests racing with the same code cannot both win.
 */
export async function claimTotpStep(db: Database, identityId: string, step: number): Promise<boolean> {
  const claimed = await db
    .update(credentials)
    .set({ lastUsedStep: step })
    .where(and(eq(credentials.identityId, identityId), eq(credentials.type, 'totp'), or(isNull(credentials.lastUsedStep), lt(credentials.lastUsedStep, step))))
    .returning({ identityId: credentials.identityId });
  return claimed.length > 0;
}

export async function unlinkTotp(db: Database, identityId: string): Promise<void> {
  await db.delete(credentials).where(and(eq(credentials.identityId, identityId), eq(credentials.type, 'totp')));
}

export async function findRecoveryAddress(db: Database, email: string) {
  const [row] = await db.select().from(recoveryAddresses).where(eq(recoveryAddresses.value, email)).limit(1);
  return row;
}
