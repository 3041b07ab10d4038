import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, eq, gt, lt, ne } from 'drizzle-orm';
import { type AuthenticationMethod, type Device, sessions } from '../db/schema/sessions.js';
import { type IdentityView, loadIdentityView } from './identities.js';
import { hmac, randomAlphanumeric, sha256 } from './tokens.js';

export type Session = typeof sessions.$inferSelect;

/** Sessions last 24 hours (Kratos' default lifespan). */
export const sessionLifespanMs = 24 * 60 * 60 * 1000;
/** Use is recorded at most this often, so whoami costs one UPDATE a minute per session, not one per call. */
export const activityRecordIntervalMs = 60 * 1000;
/** Password and TOTP changes need a login at most this old (the privileged window). */
export const privilegedWindowMs = 60 * 60 * 1000;

type NewSession = {
  identityId: string;
  aal: 'aal1' | 'aal2';
  methods: AuthenticationMethod[];
  device: Omit<Device, 'id'>;
  now: Date;
  authenticatedAt?: Date;
};

/** A new session and its token; only the token's hash is stored. */
export async function createSession(db: Database, input: NewSession): Promise<{ session: Session; token: string }> {
  const token = `ory_st_${randomAlphanumeric(32)}`;
  const [session] = await db
    .insert(sessions)
    .values({
      id: randomUUID(),
      tokenHash: sha256(token),
      identityId: input.identityId,
      aal: input.aal,
      authenticationMethods: input.methods,
      devices: [{ id: randomUUID(), ...input.device }],
      issuedAt: input.now,
      authenticatedAt: input.authenticatedAt ?? input.now,
      expiresAt: new Date(input.now.getTime() + sessionLifespanMs),
      lastActiveAt: input.now,
    })
    .returning();
  if (!session) throw new Error('session insert returned nothing');
  return { session, token };
}

/** Within its lifespan and used within the idle timeout. */
const isLive = (now: Date, idleTimeoutMs: number) =>
  and(eq(sessions.active, true), gt(sessions.expiresAt, now), gt(sessions.lastActiveAt, new Date(now.getTime() - idleTimeoutMs)));

export async function findActiveSession(db: Database, token: string, now: Date, idleTimeoutMs: number): Promise<Session | undefined> {
  const [session] = await db
    .select()
    .from(sessions)
    .where(and(eq(sessions.tokenHash, sha256(token)), isLive(now, idleTimeoutMs)))
    .limit(1);
  return session;
}

/** Marks the session used now, unless that was recorded less than a minute ago. */
export async function recordActivity(db: Database, session: Session, now: Date): Promise<Session> {
  const due = new Date(now.getTime() - activityRecordIntervalMs);
  if (session.lastActiveAt.getTime() > due.getTime()) return session;
  await db
    .update(sessions)
    .set({ lastActiveAt: now })
    .where(and(eq(sessions.id, session.id), lt(sessions.lastActiveAt, due)));
  return { ...session, lastActiveAt: now };
}

export async function revokeSession(db: Database, sessionId: string): Promise<void> {
  await db.update(sessions).set({ active: false }).where(eq(sessions.id, sessionId));
}

export async function listOtherSessions(db: Database, current: Session, now: Date, idleTimeoutMs: number): Promise<Session[]> {
  return db
    .select()
    .from(sessions)
    .where(and(eq(sessions.identityId, current.identityId), isLive(now, idleTimeoutMs), ne(sessions.id, current.id)));
}

export async function revokeOtherSessions(db: Database, current: Session): Promise<number> {
  const revoked = await db
    .update(sessions)
    .set({ active: false })
    .where(and(eq(sessions.identityId, current.identityId), eq(sessions.active, true), ne(sessions.id, current.id)))
    .returning({ id: sessions.id });
  return revoked.length;
}

/** Ends every session of an identity (a recovery: whoever held one may be the reason for it). */
export async function revokeAllSessions(db: Database, identityId: string): Promise<void> {
  await db
    .update(sessions)
    .set({ active: false })
    .where(and(eq(sessions.identityId, identityId), eq(sessions.active, true)));
}

export async function revokeIdentitySession(db: Database, identityId: string, sessionId: string): Promise<boolean> {
  const revoked = await db
    .update(sessions)
    .set({ active: false })
    .where(and(eq(sessions.id, sessionId), eq(sessions.identityId, identityId), eq(sessions.active, true)))
    .returning({ id: sessions.id });
  return revoked.length > 0;
}

/** The logout token is derived from the session, so every logout flow of a session shows the same one. */
export function logoutToken(secret: string, sessionId: string): string {
  return `ory_lo_${hmac(secret, `logout:${sessionId}`).slice(0, 32)}`;
}

export const isPrivileged = (session: Session, now: Date) => now.getTime() - session.authenticatedAt.getTime() < privilegedWindowMs;

export async function serializeSession(db: Database, session: Session, publicUrl: string, view?: IdentityView) {
  const identity = (view ?? (await loadIdentityView(db, session.identityId, publicUrl))).identity;
  return {
    id: session.id,
    active: session.active,
    expires_at: session.expiresAt.toISOString(),
    authenticated_at: session.authenticatedAt.toISOString(),
    issued_at: session.issuedAt.toISOString(),
    authenticator_assurance_level: session.aal,
    // jsonb keeps keys in its own order; the wire order is Kratos'.
    authentication_methods: session.authenticationMethods.map(({ method, aal, completed_at }) => ({ method, aal, completed_at })),
    identity,
    devices: session.devices,
  };
}
