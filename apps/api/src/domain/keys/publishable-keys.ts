import { randomUUID } from 'node:crypto';
import { defaultPerClientLimits, type PublishableKey, type PublishableKeyFields } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { keySpend, publishableKeys } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { type Acting, actorOf, changesBetween, initialValues, recordAudit } from '../audit/record-audit.js';
import { dollarsToNanos, nanosToDollars, periodStart } from '../money.js';
import type { Viewer } from '../people/ensure-person.js';
import { newKeyValue } from './key-value.js';

/** A validated key form (contracts' publishableKeyInputSchema output). */
export type KeyInput = PublishableKeyFields;

const nanosOrNull = (dollars: number | null) => (dollars === null ? null : dollarsToNanos(dollars));
const dollarsOrNull = (nanos: bigint | null) => (nanos === null ? null : nanosToDollars(nanos));

/** The per-key controls the input names; on update an absent one is left as it is. */
const controlsOf = (input: KeyInput) => ({
  ...(input.allowedModels !== undefined ? { allowedModels: input.allowedModels } : {}),
  ...(input.maxOutputTokensPerCall !== undefined ? { maxOutputTokensPerCall: input.maxOutputTokensPerCall } : {}),
  ...(input.perClientLimits?.requestsPerMinute !== undefined ? { clientRequestsPerMinute: input.perClientLimits.requestsPerMinute } : {}),
  ...(input.perClientLimits?.spendPerDay !== undefined ? { clientSpendPerDayNanos: nanosOrNull(input.perClientLimits.spendPerDay) } : {}),
  ...(input.perEndUserLimits?.requestsPerMinute !== undefined ? { endUserRequestsPerMinute: input.perEndUserLimits.requestsPerMinute } : {}),
  ...(input.perEndUserLimits?.spendPerDay !== undefined ? { endUserSpendPerDayNanos: nanosOrNull(input.perEndUserLimits.spendPerDay) } : {}),
  ...(input.perEndUserLimits?.spendPerMonth !== undefined ? { endUserSpendPerMonthNanos: nanosOrNull(input.perEndUserLimits.spendPerMonth) } : {}),
  ...(input.endUserTokens !== undefined ? { endUserTokens: input.endUserTokens } : {}),
});

type KeyRow = typeof publishableKeys.$inferSelect;

/** What a key spent and holds reserved in the current month. */
type Spend = { spent: bigint; reserved: bigint };
const nothingSpent: Spend = { spent: 0n, reserved: 0n };

/**
 * The most a copied key can spend today: what its budget has left this month. (Per-address caps
 * bound one address; an attacker with many addresses meets only the budget and the key's rate.)
 */
const worstCaseToday = (key: KeyRow, { spent, reserved }: Spend) => {
  const left = key.spendLimitNanos - spent - reserved;
  return nanosToDollars(left > 0n ? left : 0n);
};

/** The previous value itself never leaves the api: the console only learns until when it works. */
const toContract = (key: KeyRow, spend: Spend, now: Date): PublishableKey => ({
  id: key.id,
  name: key.name,
  value: key.value,
  spendLimitAmount: nanosToDollars(key.spendLimitNanos),
  spendLimitPeriodType: key.spendLimitPeriod,
  currentPeriodSpendAmount: nanosToDollars(spend.spent),
  allowedOrigins: key.allowedOrigins,
  allowedModels: key.allowedModels,
  maxOutputTokensPerCall: key.maxOutputTokensPerCall,
  perClientLimits: {
    requestsPerMinute: key.clientRequestsPerMinute,
    spendPerDay: dollarsOrNull(key.clientSpendPerDayNanos),
  },
  perEndUserLimits: {
    requestsPerMinute: key.endUserRequestsPerMinute,
    spendPerDay: dollarsOrNull(key.endUserSpendPerDayNanos),
    spendPerMonth: dollarsOrNull(key.endUserSpendPerMonthNanos),
  },
  endUserTokens: key.endUserTokens,
  worstCaseDailySpend: worstCaseToday(key, spend),
  ...(key.previousValue && key.previousValueExpiresAt && key.previousValueExpiresAt > now
    ? { previousValueExpiresAt: key.previousValueExpiresAt.toISOString() }
    : {}),
});

/** A key's settings as the audit log records them: named as the key form names them, in dollars like the contract. */
const settingsOf = (key: PublishableKey) => ({
  name: key.name,
  budget: key.spendLimitAmount,
  allowedOrigins: key.allowedOrigins,
  allowedModels: key.allowedModels,
  maxOutputTokensPerCall: key.maxOutputTokensPerCall,
  perClientLimits: key.perClientLimits,
  perEndUserLimits: key.perEndUserLimits,
  endUserTokens: key.endUserTokens,
});

const unknownKey = () => new AppError('NotFound', 'Unknown publishable key.');

/** The organisation's live keys, oldest first, with what each spent this UTC month. */
export async function listKeys(db: Database, viewer: Viewer, now: Date): Promise<PublishableKey[]> {
  const rows = await db
    .select({ key: publishableKeys, spent: keySpend.spentNanos, reserved: keySpend.reservedNanos })
    .from(publishableKeys)
    .leftJoin(keySpend, and(eq(keySpend.publishableKeyId, publishableKeys.id), eq(keySpend.periodStart, periodStart(now))))
    .where(and(eq(publishableKeys.organizationId, viewer.organizationId), isNull(publishableKeys.deletedAt)))
    .orderBy(asc(publishableKeys.createdAt), asc(publishableKeys.id));
  return rows.map((row) => toContract(row.key, { spent: row.spent ?? 0n, reserved: row.reserved ?? 0n }, now));
}

export async function createKey(db: Database, viewer: Acting, input: KeyInput, now: Date): Promise<PublishableKey> {
  return db.transaction(async (tx) => {
    const [key] = await tx
      .insert(publishableKeys)
      .values({
        id: randomUUID(),
        organizationId: viewer.organizationId,
        name: input.name,
        value: newKeyValue(),
        spendLimitNanos: dollarsToNanos(input.budget),
        spendLimitPeriod: input.budgetType,
        allowedOrigins: input.allowedOrigins,
        clientRequestsPerMinute: defaultPerClientLimits.requestsPerMinute,
        clientSpendPerDayNanos: dollarsToNanos(defaultPerClientLimits.spendPerDay),
        ...controlsOf(input),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!key) throw new Error('key insert returned nothing');
    const created = toContract(key, nothingSpent, now);
    await recordAudit(tx, {
      organizationId: viewer.organizationId,
      actor: actorOf(viewer),
      action: 'key.created',
      target: created.name,
      changes: initialValues(settingsOf(created)),
    });
    return created;
  });
}

/** The viewer's live key: another organisation's key, or a deleted one, matches nothing and so answers like a key that never existed. */
export const liveKeyOf = (viewer: Pick<Viewer, 'organizationId'>, keyId: string) =>
  and(eq(publishableKeys.id, keyId), eq(publishableKeys.organizationId, viewer.organizationId), isNull(publishableKeys.deletedAt));

/** Writes a change to the viewer's live key with the next version, in the caller's transaction; the key as it now is. */
async function changeLiveKey(tx: Database, viewer: Acting, keyId: string, change: PgUpdateSetSource<typeof publishableKeys>, now: Date): Promise<KeyRow> {
  const [key] = await tx
    .update(publishableKeys)
    .set({ ...change, version: sql`${publishableKeys.version} + 1`, updatedAt: now })
    .where(liveKeyOf(viewer, keyId))
    .returning();
  if (!key) throw unknownKey();
  return key;
}

const withSpend = async (db: Database, key: KeyRow, now: Date) => toContract(key, await spentThisPeriod(db, key.id, now), now);

/** Records only the settings the update changed, before → after; an update that changes none records nothing. */
export async function updateKey(db: Database, viewer: Acting, keyId: string, input: KeyInput, now: Date): Promise<PublishableKey> {
  return db.transaction(async (tx) => {
    // Locked, so the "before" recorded is exactly what this update replaces.
    const [before] = await tx.select().from(publishableKeys).where(liveKeyOf(viewer, keyId)).for('update');
    if (!before) throw unknownKey();
    const change = {
      name: input.name,
      spendLimitNanos: dollarsToNanos(input.budget),
      spendLimitPeriod: input.budgetType,
      allowedOrigins: input.allowedOrigins,
      ...controlsOf(input),
    };
    const key = await withSpend(tx, await changeLiveKey(tx, viewer, keyId, change, now), now);
    const changes = changesBetween(settingsOf(toContract(before, nothingSpent, now)), settingsOf(key));
    if (Object.keys(changes).length > 0) {
      await recordAudit(tx, { organizationId: viewer.organizationId, actor: actorOf(viewer), action: 'key.updated', target: key.name, changes });
    }
    return key;
  });
}

/**
 * A new value for the same key (id, budget, origins and spend stay). The value it replaces keeps
 * authenticating until now + overlap (exclusive); an older previous value stops at once.
 */
export async function rollKey(db: Database, viewer: Acting, keyId: string, overlapHours: number, now: Date): Promise<PublishableKey> {
  const overlap = overlapHours > 0;
  return db.transaction(async (tx) => {
    const key = await changeLiveKey(
      tx,
      viewer,
      keyId,
      {
        value: newKeyValue(),
        // The right-hand side reads the row as it was: the value being replaced.
        previousValue: overlap ? sql`${publishableKeys.value}` : null,
        previousValueExpiresAt: overlap ? new Date(now.getTime() + overlapHours * 3_600_000) : null,
      },
      now,
    );
    await recordAudit(tx, {
      organizationId: viewer.organizationId,
      actor: actorOf(viewer),
      action: 'key.rolled',
      target: key.name,
      changes: initialValues({ overlapHours }),
    });
    return withSpend(tx, key, now);
  });
}

async function spentThisPeriod(db: Database, keyId: string, now: Date): Promise<Spend> {
  const [spend] = await db
    .select({ spent: keySpend.spentNanos, reserved: keySpend.reservedNanos })
    .from(keySpend)
    .where(and(eq(keySpend.publishableKeyId, keyId), eq(keySpend.periodStart, periodStart(now))));
  return spend ?? nothingSpent;
}

/**
 * Soft delete: the usage history keeps its key; neither its value nor a previous one authenticates
 * again. The reason the person gave, if any, is recorded with the deletion.
 */
export async function deleteKey(db: Database, viewer: Acting, keyId: string, now: Date, reason?: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [deleted] = await tx.update(publishableKeys).set({ deletedAt: now }).where(liveKeyOf(viewer, keyId)).returning({ name: publishableKeys.name });
    if (!deleted) throw unknownKey();
    await recordAudit(tx, {
      organizationId: viewer.organizationId,
      actor: actorOf(viewer),
      action: 'key.deleted',
      target: deleted.name,
      changes: reason ? initialValues({ reason }) : {},
    });
  });
}
