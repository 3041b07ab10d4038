import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, desc, eq, gt, inArray, isNull } from 'drizzle-orm';
import { flowCodes } from '../db/schema/flows.js';
import { addMinutes } from './clock.js';
import { hmac, randomAlphanumeric, randomCode } from './tokens.js';

type CodeKind = (typeof flowCodes.$inferSelect)['kind'];

/** Codes and links live an hour (Kratos' default). */
export const codeLifespanMinutes = 60;

const digest = (secret: string, flowId: string, kind: CodeKind, code: string) => hmac(secret, `${flowId}:${kind}:${code}`);

/**
 * Issues a fresh code (or, for links, a 32-character token) for a flow, replacing the flow's
 * earlier ones of the same kind. Only its HMAC is stored.
 */
export async function issueCode(
  db: Database,
  secret: string,
  input: { flowId: string; kind: CodeKind; address: string; identityId?: string; now: Date },
): Promise<string> {
  const code = input.kind === 'recovery_link' ? randomAlphanumeric(32) : randomCode();
  await db.transaction(async (tx) => {
    await tx.delete(flowCodes).where(and(eq(flowCodes.flowId, input.flowId), eq(flowCodes.kind, input.kind), isNull(flowCodes.usedAt)));
    await tx.insert(flowCodes).values({
      id: randomUUID(),
      flowId: input.flowId,
      kind: input.kind,
      address: input.address,
      identityId: input.identityId ?? null,
      hmac: digest(secret, input.flowId, input.kind, code),
      expiresAt: addMinutes(input.now, codeLifespanMinutes),
      createdAt: input.now,
    });
  });
  return code;
}

export type CodeCheck = { outcome: 'valid'; address: string; identityId: string | null } | { outcome: 'used' } | { outcome: 'invalid' };

/** Marks the code used when it is valid; a code works once, within its lifespan, on its own flow. */
export async function consumeCode(db: Database, secret: string, input: { flowId: string; kind: CodeKind; code: string; now: Date }): Promise<CodeCheck> {
  const [row] = await db
    .select()
    .from(flowCodes)
    .where(and(eq(flowCodes.flowId, input.flowId), eq(flowCodes.kind, input.kind), eq(flowCodes.hmac, digest(secret, input.flowId, input.kind, input.code))))
    .limit(1);
  if (!row) return { outcome: 'invalid' };
  if (row.usedAt) return { outcome: 'used' };
  if (row.expiresAt.getTime() <= input.now.getTime()) return { outcome: 'invalid' };
  const claimed = await db
    .update(flowCodes)
    .set({ usedAt: input.now })
    .where(and(eq(flowCodes.id, row.id), isNull(flowCodes.usedAt)))
    .returning({ id: flowCodes.id });
  // Two submissions racing for one code: only the one that marked it wins.
  if (claimed.length === 0) return { outcome: 'used' };
  return { outcome: 'valid', address: row.address, identityId: row.identityId };
}

/** Withdraws every recovery code and link of an identity not used yet: a new password or a recovery makes them moot. */
export async function revokeRecoveryCodes(db: Database, identityId: string): Promise<void> {
  await db
    .delete(flowCodes)
    .where(and(eq(flowCodes.identityId, identityId), inArray(flowCodes.kind, ['recovery_code', 'recovery_link']), isNull(flowCodes.usedAt)));
}

/** A sign-in code is mailed at most this often per identity, however many flows ask: the owner's mailbox is not a stranger's to flood. */
export const loginCodeResendMinutes = 10;

const loginDigest = (secret: string, identityId: string, code: string) => hmac(secret, `login:${identityId}:${code}`);

/**
 * A sign-in code for the identity (issue #53), unless one was issued in the last
 * loginCodeResendMinutes (undefined: nothing to mail). A code works on any of the identity's login
 * flows for its lifespan, so a stranger's flows asking for codes never make the owner's mail useless.
 */
export async function issueLoginCode(
  db: Database,
  secret: string,
  input: { flowId: string; identityId: string; address: string; now: Date },
): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    const [recent] = await tx
      .select({ id: flowCodes.id })
      .from(flowCodes)
      .where(
        and(
          eq(flowCodes.identityId, input.identityId),
          eq(flowCodes.kind, 'login_code'),
          isNull(flowCodes.usedAt),
          gt(flowCodes.createdAt, addMinutes(input.now, -loginCodeResendMinutes)),
        ),
      )
      .orderBy(desc(flowCodes.createdAt))
      .limit(1)
      .for('update');
    if (recent) return undefined;
    const code = randomCode();
    await tx.insert(flowCodes).values({
      id: randomUUID(),
      flowId: input.flowId,
      kind: 'login_code',
      address: input.address,
      identityId: input.identityId,
      hmac: loginDigest(secret, input.identityId, code),
      expiresAt: addMinutes(input.now, codeLifespanMinutes),
      createdAt: input.now,
    });
    return code;
  });
}

/** Marks the identity's sign-in code used when it is one of its live ones; each works once. */
export async function useLoginCode(db: Database, secret: string, input: { identityId: string; code: string; now: Date }): Promise<boolean> {
  const claimed = await db
    .update(flowCodes)
    .set({ usedAt: input.now })
    .where(
      and(
        eq(flowCodes.identityId, input.identityId),
        eq(flowCodes.kind, 'login_code'),
        eq(flowCodes.hmac, loginDigest(secret, input.identityId, input.code)),
        isNull(flowCodes.usedAt),
        gt(flowCodes.expiresAt, input.now),
      ),
    )
    .returning({ id: flowCodes.id });
  return claimed.length > 0;
}
