import { randomUUID } from 'node:crypto';
import { type KeyBlock, maxBlocksPerKey } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, sql } from 'drizzle-orm';
import { publishableKeys } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import type { Viewer } from '../people/ensure-person.js';
import { liveKeyOf } from './publishable-keys.js';

type Block = (typeof publishableKeys.$inferSelect)['blocks'][number];

const toContract = (block: Block): KeyBlock => ({ id: block.id, clientAddress: block.client, createdAt: block.createdAt });

async function blocksOf(db: Database, viewer: Viewer, keyId: string): Promise<Block[]> {
  const [key] = await db.select({ blocks: publishableKeys.blocks }).from(publishableKeys).where(liveKeyOf(viewer, keyId));
  if (!key) throw new AppError('NotFound', 'Unknown publishable key.');
  return key.blocks;
}

export async function listBlocks(db: Database, viewer: Viewer, keyId: string): Promise<KeyBlock[]> {
  return (await blocksOf(db, viewer, keyId)).map(toContract);
}

/**
 * Blocks a client (clientOf's form) on the key, in one statement that also counts an edit of the
 * key, so every instance's copy of it is out of date at its next admission.
 */
export async function addBlock(db: Database, viewer: Viewer, keyId: string, client: string, now: Date): Promise<KeyBlock> {
  const block: Block = { id: randomUUID(), client, createdAt: now.toISOString() };
  const [added] = await db
    .update(publishableKeys)
    .set({ blocks: sql`${publishableKeys.blocks} || ${JSON.stringify([block])}::jsonb`, version: sql`${publishableKeys.version} + 1`, updatedAt: now })
    .where(
      and(
        liveKeyOf(viewer, keyId),
        sql`jsonb_array_length(${publishableKeys.blocks}) < ${maxBlocksPerKey}`,
        sql`not ${publishableKeys.blocks} @> ${JSON.stringify([{ client }])}::jsonb`,
      ),
    )
    .returning({ id: publishableKeys.id });
  if (added) return toContract(block);
  const blocks = await blocksOf(db, viewer, keyId);
  if (blocks.some((existing) => existing.client === client)) throw new AppError('Conflict', `${client} is already blocked on this key.`);
  throw new AppError('Conflict', `A key can block at most ${maxBlocksPerKey} addresses. Lift some, or roll the key.`);
}

export async function removeBlock(db: Database, viewer: Viewer, keyId: string, blockId: string, now: Date): Promise<void> {
  const [removed] = await db
    .update(publishableKeys)
    .set({
      blocks: sql`(select coalesce(jsonb_agg(b), '[]'::jsonb) from jsonb_array_elements(${publishableKeys.blocks}) as b where b->>'id' <> ${blockId})`,
      version: sql`${publishableKeys.version} + 1`,
      updatedAt: now,
    })
    .where(and(liveKeyOf(viewer, keyId), sql`${publishableKeys.blocks} @> ${JSON.stringify([{ id: blockId }])}::jsonb`))
    .returning({ id: publishableKeys.id });
  if (!removed) {
    await blocksOf(db, viewer, keyId);
    throw new AppError('NotFound', 'Unknown block.');
  }
}
