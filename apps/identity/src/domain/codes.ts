import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, eq, inArray, isNull } from 'drizzle-orm';
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
