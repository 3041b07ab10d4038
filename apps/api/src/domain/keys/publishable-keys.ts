import { randomUUID } from 'node:crypto';
import { defaultPerClientLimits, type PublishableKey, type PublishableKeyFields } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { keySpend, publishableKeys } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
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

export async function createKey(db: Database, viewer: Viewer, input: KeyInput, now: Date): Promise<PublishableKey> {
  const [key] = await db
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
  return toContract(key, nothingSpent, now);
}

/** The viewer's live key: another organisation's key, or a deleted one, matches nothing and so answers like a key that never existed. */
export const liveKeyOf = (viewer: Viewer, keyId: string) =>
  and(eq(publishableKeys.id, keyId), eq(publishableKeys.organizationId, viewer.organizationId), isNull(publishableKeys.deletedAt));

/** Writes a change to the viewer's live key with the next version, and answers with the key as it now is. */
async function changeLiveKey(
  db: Database,
  viewer: Viewer,
  keyId: string,
  change: PgUpdateSetSource<typeof publishableKeys>,
  now: Date,
): Promise<PublishableKey> {
  const [key] = await db
    .update(publishableKeys)
    .set({ ...change, version: sql`${publishableKeys.version} + 1`, updatedAt: now })
    .where(liveKeyOf(viewer, keyId))
    .returning();
  if (!key) throw new AppError('NotFound', 'Unknown publishable key.');
  return toContract(key, await spentThisPeriod(db, keyId, now), now);
}

export async function updateKey(db: Database, viewer: Viewer, keyId: string, input: KeyInput, now: Date): Promise<PublishableKey> {
  return changeLiveKey(
    db,
    viewer,
    keyId,
    {
      name: input.name,
      spendLimitNanos: dollarsToNanos(input.budget),
      spendLimitPeriod: input.budgetType,
      allowedOrigins: input.allowedOrigins,
      ...controlsOf(input),
    },
    now,
  );
}

/**
 * A new value for the same key (id, budget, origins and spend stay). The value it replaces keeps
 * authenticating until now + overlap (exclusive); an older previous value stops at once.
 */
export async function rollKey(db: Database, viewer: Viewer, keyId: string, overlapHours: number, now: Date): Promise<PublishableKey> {
  const overlap = overlapHours > 0;
  return changeLiveKey(
    db,
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
}

async function spentThisPeriod(db: Database, keyId: string, now: Date): Promise<Spend> {
  const [spend] = await db
    .select({ spent: keySpend.spentNanos, reserved: keySpend.reservedNanos })
    .from(keySpend)
    .where(and(eq(keySpend.publishableKeyId, keyId), eq(keySpend.periodStart, periodStart(now))));
  return spend ?? nothingSpent;
}

/** Soft delete: the usage history keeps its key; neither its value nor a previous one authenticates again. */
export async function deleteKey(db: Database, viewer: Viewer, keyId: string, now: Date): Promise<void> {
  const deleted = await db.update(publishableKeys).set({ deletedAt: now }).where(liveKeyOf(viewer, keyId)).returning({ id: publishableKeys.id });
  if (deleted.length === 0) throw new AppError('NotFound', 'Unknown publishable key.');
}
