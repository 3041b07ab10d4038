import { randomUUID } from 'node:crypto';
import { type KeyBlock, maxBlocksPerKey } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, sql } from 'drizzle-orm';
import { type KeyBlockRow, publishableKeys } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { type Acting, actorOf, recordAudit } from '../audit/record-audit.js';
import type { Viewer } from '../people/ensure-person.js';
import { emitEvent } from '../webhooks/emit-event.js';
import { liveKeyOf } from './publishable-keys.js';

type Block = KeyBlockRow;

/** Whom a block refuses: a client address (clientOf's form) or an end user (a token's `sub`). */
export type Blocked = { client: string } | { endUser: string };

const toContract = (block: Block): KeyBlock => ({
  id: block.id,
  ...(block.client !== undefined ? { clientAddress: block.client } : { endUser: block.endUser }),
  createdAt: block.createdAt,
});

/** The caller as the audit log names it, with the contract's field names. */
const callerOf = (blocked: Blocked) => ('client' in blocked ? { field: 'clientAddress', value: blocked.client } : { field: 'endUser', value: blocked.endUser });

/** The caller as a webhook's `key.blocked_caller` names it. */
const callerData = (blocked: Blocked) => ('client' in blocked ? { clientAddress: blocked.client } : { endUser: blocked.endUser });

const sameCaller = (block: Block, blocked: Blocked) => ('client' in blocked ? block.client === blocked.client : block.endUser === blocked.endUser);

async function blocksOf(db: Database, viewer: Pick<Viewer, 'organizationId'>, keyId: string): Promise<Block[]> {
  const [key] = await db.select({ blocks: publishableKeys.blocks }).from(publishableKeys).where(liveKeyOf(viewer, keyId));
  if (!key) throw new AppError('NotFound', 'Unknown publishable key.');
  return key.blocks;
}

export async function listBlocks(db: Database, viewer: Pick<Viewer, 'organizationId'>, keyId: string): Promise<KeyBlock[]> {
  return (await blocksOf(db, viewer, keyId)).map(toContract);
}

/**
 * Blocks a client address or an end user on the key, in one statement that also counts an edit of
 * the key, so every instance's copy of it is out of date at its next admission.
 */
export async function addBlock(db: Database, viewer: Acting, keyId: string, blocked: Blocked, now: Date): Promise<KeyBlock> {
  const block = { id: randomUUID(), ...blocked, createdAt: now.toISOString() } as Block;
  return db.transaction(async (tx) => {
    const [added] = await tx
      .update(publishableKeys)
      .set({ blocks: sql`${publishableKeys.blocks} || ${JSON.stringify([block])}::jsonb`, version: sql`${publishableKeys.version} + 1`, updatedAt: now })
      .where(
        and(
          liveKeyOf(viewer, keyId),
          sql`jsonb_array_length(${publishableKeys.blocks}) < ${maxBlocksPerKey}`,
          sql`not ${publishableKeys.blocks} @> ${JSON.stringify([blocked])}::jsonb`,
        ),
      )
      .returning({ name: publishableKeys.name, kind: publishableKeys.kind });
    if (added) {
      const caller = callerOf(blocked);
      await emitEvent(tx, {
        organizationId: viewer.organizationId,
        type: 'key.blocked_caller',
        data: { keyId, name: added.name, kind: added.kind, ...callerData(blocked) },
      });
      await recordAudit(tx, {
        organizationId: viewer.organizationId,
        actor: actorOf(viewer),
        action: 'key.blocked_caller',
        target: added.name,
        changes: { [caller.field]: { to: caller.value } },
      });
      return toContract(block);
    }
    const blocks = await blocksOf(tx, viewer, keyId);
    if (blocks.some((existing) => sameCaller(existing, blocked))) {
      throw new AppError('Conflict', `${'client' in blocked ? blocked.client : `End user ${blocked.endUser}`} is already blocked on this key.`);
    }
    throw new AppError('Conflict', `A key can block at most ${maxBlocksPerKey} addresses and end users. Lift some, or roll the key.`);
  });
}

export async function removeBlock(db: Database, viewer: Acting, keyId: string, blockId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    // Locked, so the block read here is the one the update lifts.
    const [key] = await tx
      .select({ name: publishableKeys.name, blocks: publishableKeys.blocks })
      .from(publishableKeys)
      .where(liveKeyOf(viewer, keyId))
      .for('update');
    if (!key) throw new AppError('NotFound', 'Unknown publishable key.');
    const block = key.blocks.find((existing) => existing.id === blockId);
    if (!block) throw new AppError('NotFound', 'Unknown block.');
    await tx
      .update(publishableKeys)
      .set({
        blocks: sql`(select coalesce(jsonb_agg(b), '[]'::jsonb) from jsonb_array_elements(${publishableKeys.blocks}) as b where b->>'id' <> ${blockId})`,
        version: sql`${publishableKeys.version} + 1`,
        updatedAt: now,
      })
      .where(liveKeyOf(viewer, keyId));
    const caller = callerOf(block);
    await recordAudit(tx, {
      organizationId: viewer.organizationId,
      actor: actorOf(viewer),
      action: 'key.unblocked_caller',
      target: key.name,
      changes: { [caller.field]: { from: caller.value } },
    });
  });
}
