import { randomUUID } from 'node:crypto';
import type { KeyMaker, PublishableKeyFields, Role } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { type KeyKind, keySpend, memberships, persons, publishableKeys } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { type Acting, actorOf, changesBetween, initialValues, recordAudit } from '../audit/record-audit.js';
import { dollarsToNanos, nanosToDollars, periodStart } from '../money.js';
import type { Viewer } from '../people/ensure-person.js';

/**
 * Keys of both kinds live in one table and follow one set of rules (issue #23): this module holds
 * them, and publishable-keys.ts and secret-keys.ts say what differs (a `KeyKindSpec`).
 */
export type KeyRow = typeof publishableKeys.$inferSelect;
/** A key's row with who was last shown its value (keyMakers' join). */
export type KeyWithMaker = KeyRow & { madeBy: KeyMaker | null };
type KeyColumns = Partial<typeof publishableKeys.$inferInsert>;

/** The form both kinds share: name, budget and the per-key controls (origins are a publishable key's own). */
export type KeyForm = Omit<PublishableKeyFields, 'allowedOrigins'>;

/** What a key spent and holds reserved in the current month. */
export type Spend = { spent: bigint; reserved: bigint };
export const nothingSpent: Spend = { spent: 0n, reserved: 0n };

/** A new key value: what the table stores, what the person is shown once, and the prefix kept to recognise it. */
export type NewValue = { stored: string; shown: string; prefix: string | null };

export type KeyKindSpec<Contract, CreateInput extends KeyForm, UpdateInput extends KeyForm> = {
  kind: KeyKind;
  /** "Unknown publishable key." */
  unknownMessage: string;
  newValue: () => NewValue;
  /** The kind's own columns of a new key, from its form (origins, scope, default caps). */
  created: (input: CreateInput) => KeyColumns;
  /** The kind's own columns an edit changes (origins). */
  updated: (input: UpdateInput) => KeyColumns;
  /** The key's JSON; `shown` is the new value, only in the answers to create and roll. */
  toContract: (key: KeyWithMaker, spend: Spend, now: Date, shown?: string) => Contract;
  /** The key's settings as the audit log records them. */
  settingsOf: (key: Contract) => Record<string, unknown>;
};

const nanosOrNull = (dollars: number | null) => (dollars === null ? null : dollarsToNanos(dollars));
export const dollarsOrNull = (nanos: bigint | null) => (nanos === null ? null : nanosToDollars(nanos));

/** The per-key controls the form names; on update an absent one is left as it is. */
const controlsOf = (input: KeyForm): KeyColumns => ({
  ...(input.allowedModels !== undefined ? { allowedModels: input.allowedModels } : {}),
  ...(input.maxOutputTokensPerCall !== undefined ? { maxOutputTokensPerCall: input.maxOutputTokensPerCall } : {}),
  ...(input.perClientLimits?.requestsPerMinute !== undefined ? { clientRequestsPerMinute: input.perClientLimits.requestsPerMinute } : {}),
  ...(input.perClientLimits?.spendPerDay !== undefined ? { clientSpendPerDayNanos: nanosOrNull(input.perClientLimits.spendPerDay) } : {}),
  ...(input.perEndUserLimits?.requestsPerMinute !== undefined ? { endUserRequestsPerMinute: input.perEndUserLimits.requestsPerMinute } : {}),
  ...(input.perEndUserLimits?.spendPerDay !== undefined ? { endUserSpendPerDayNanos: nanosOrNull(input.perEndUserLimits.spendPerDay) } : {}),
  ...(input.perEndUserLimits?.spendPerMonth !== undefined ? { endUserSpendPerMonthNanos: nanosOrNull(input.perEndUserLimits.spendPerMonth) } : {}),
  ...(input.endUserTokens !== undefined ? { endUserTokens: input.endUserTokens } : {}),
  ...(input.responseCacheSeconds !== undefined ? { responseCacheSeconds: input.responseCacheSeconds } : {}),
  ...(input.responseCacheShared !== undefined ? { responseCacheShared: input.responseCacheShared } : {}),
});

/**
 * The most a copied key can spend today: what its budget has left this month. (Per-address caps
 * bound one address; an attacker with many addresses meets only the budget and the key's rate.)
 */
const worstCaseToday = (key: KeyRow, { spent, reserved }: Spend) => {
  const left = key.spendLimitNanos - spent - reserved;
  return nanosToDollars(left > 0n ? left : 0n);
};

/** The fields both kinds' JSON share: budget, spend, controls, and until when a rolled key's replaced value still works. */
export const sharedFieldsOf = (key: KeyWithMaker, spend: Spend, now: Date) => ({
  id: key.id,
  name: key.name,
  spendLimitAmount: nanosToDollars(key.spendLimitNanos),
  spendLimitPeriodType: key.spendLimitPeriod,
  currentPeriodSpendAmount: nanosToDollars(spend.spent),
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
  responseCacheSeconds: key.responseCacheSeconds,
  responseCacheShared: key.responseCacheShared,
  worstCaseDailySpend: worstCaseToday(key, spend),
  madeBy: key.madeBy,
  // The previous value itself never leaves the api: the console only learns until when it works.
  ...(key.previousValue && key.previousValueExpiresAt && key.previousValueExpiresAt > now
    ? { previousValueExpiresAt: key.previousValueExpiresAt.toISOString() }
    : {}),
});

/** The settings both kinds share, as the audit log records them: named as the key form names them, in dollars like the contract. */
export const sharedSettingsOf = (key: ReturnType<typeof sharedFieldsOf>) => ({
  name: key.name,
  budget: key.spendLimitAmount,
  allowedModels: key.allowedModels,
  maxOutputTokensPerCall: key.maxOutputTokensPerCall,
  perClientLimits: key.perClientLimits,
  perEndUserLimits: key.perEndUserLimits,
  endUserTokens: key.endUserTokens,
  responseCacheSeconds: key.responseCacheSeconds,
  responseCacheShared: key.responseCacheShared,
});

/**
 * The viewer's live key of this kind: another organisation's key, another kind's or a deleted one
 * matches nothing and so answers like a key that never existed.
 */
export const liveKeyOf = (viewer: Pick<Viewer, 'organizationId'>, keyId: string, kind: KeyKind = 'publishable') =>
  and(
    eq(publishableKeys.id, keyId),
    eq(publishableKeys.organizationId, viewer.organizationId),
    eq(publishableKeys.kind, kind),
    isNull(publishableKeys.deletedAt),
  );

/** Whom keys made by the actor are credited to: the person, or the person an admin key acts for. */
const makerIdOf = (viewer: Acting) => viewer.personId ?? viewer.onBehalfOf ?? null;

/** The maker's e-mail and role in the key's organisation now (null once they left), joined to the key's row. */
const makerColumns = { makerEmail: persons.email, makerRole: memberships.role };
const makerOf = (row: { key: KeyRow; makerEmail: string | null; makerRole: Role | null }): KeyWithMaker => ({
  ...row.key,
  madeBy: row.key.madeByPersonId && row.makerEmail !== null ? { personId: row.key.madeByPersonId, email: row.makerEmail, role: row.makerRole } : null,
});

/** The key's maker, as makerColumns read them, for a key just written. */
async function withMaker(db: Database, key: KeyRow): Promise<KeyWithMaker> {
  if (!key.madeByPersonId) return { ...key, madeBy: null };
  const [maker] = await db
    .select(makerColumns)
    .from(persons)
    .leftJoin(memberships, and(eq(memberships.personId, persons.id), eq(memberships.organizationId, key.organizationId)))
    .where(eq(persons.id, key.madeByPersonId));
  return makerOf({ key, makerEmail: maker?.makerEmail ?? null, makerRole: maker?.makerRole ?? null });
}

/** The organisation's live keys of the kind, oldest first, with what each spent this UTC month and who made them. */
export async function listKeysOf<C>(db: Database, spec: KeyKindSpec<C, never, never>, organizationId: string, now: Date): Promise<C[]> {
  const rows = await db
    .select({ key: publishableKeys, spent: keySpend.spentNanos, reserved: keySpend.reservedNanos, ...makerColumns })
    .from(publishableKeys)
    .leftJoin(persons, eq(persons.id, publishableKeys.madeByPersonId))
    .leftJoin(memberships, and(eq(memberships.personId, publishableKeys.madeByPersonId), eq(memberships.organizationId, publishableKeys.organizationId)))
    .leftJoin(
      keySpend,
      and(
        eq(keySpend.organizationId, publishableKeys.organizationId),
        eq(keySpend.publishableKeyId, publishableKeys.id),
        eq(keySpend.periodStart, periodStart(now)),
      ),
    )
    .where(and(eq(publishableKeys.organizationId, organizationId), eq(publishableKeys.kind, spec.kind), isNull(publishableKeys.deletedAt)))
    .orderBy(asc(publishableKeys.createdAt), asc(publishableKeys.id));
  return rows.map((row) => spec.toContract(makerOf(row), { spent: row.spent ?? 0n, reserved: row.reserved ?? 0n }, now));
}

export async function createKeyOf<C, I extends KeyForm>(db: Database, spec: KeyKindSpec<C, I, never>, viewer: Acting, input: I, now: Date): Promise<C> {
  return db.transaction(async (tx) => {
    const value = spec.newValue();
    const [key] = await tx
      .insert(publishableKeys)
      .values({
        id: randomUUID(),
        organizationId: viewer.organizationId,
        kind: spec.kind,
        name: input.name,
        value: value.stored,
        prefix: value.prefix,
        spendLimitNanos: dollarsToNanos(input.budget),
        spendLimitPeriod: input.budgetType,
        allowedOrigins: [],
        ...spec.created(input),
        ...controlsOf(input),
        madeByPersonId: makerIdOf(viewer),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!key) throw new Error('key insert returned nothing');
    const created = spec.toContract(await withMaker(tx, key), nothingSpent, now, value.shown);
    await recordAudit(tx, {
      organizationId: viewer.organizationId,
      actor: actorOf(viewer),
      action: 'key.created',
      target: key.name,
      changes: initialValues(spec.settingsOf(created)),
    });
    return created;
  });
}

/** Writes a change to the viewer's live key with the next version, in the caller's transaction; the key as it now is. */
async function changeLiveKey(
  tx: Database,
  spec: Pick<KeyKindSpec<unknown, never, never>, 'kind' | 'unknownMessage'>,
  viewer: Acting,
  keyId: string,
  change: PgUpdateSetSource<typeof publishableKeys>,
  now: Date,
): Promise<KeyRow> {
  const [key] = await tx
    .update(publishableKeys)
    .set({ ...change, version: sql`${publishableKeys.version} + 1`, updatedAt: now })
    .where(liveKeyOf(viewer, keyId, spec.kind))
    .returning();
  if (!key) throw new AppError('NotFound', spec.unknownMessage);
  return key;
}

async function spentThisPeriod(db: Database, key: { organizationId: string; id: string }, now: Date): Promise<Spend> {
  const [spend] = await db
    .select({ spent: keySpend.spentNanos, reserved: keySpend.reservedNanos })
    .from(keySpend)
    .where(and(eq(keySpend.organizationId, key.organizationId), eq(keySpend.publishableKeyId, key.id), eq(keySpend.periodStart, periodStart(now))));
  return spend ?? nothingSpent;
}

/** Records only the settings the update changed, before → after; an update that changes none records nothing. */
export async function updateKeyOf<C, I extends KeyForm>(
  db: Database,
  spec: KeyKindSpec<C, never, I>,
  viewer: Acting,
  keyId: string,
  input: I,
  now: Date,
): Promise<C> {
  return db.transaction(async (tx) => {
    // Locked, so the "before" recorded is exactly what this update replaces.
    const [before] = await tx
      .select()
      .from(publishableKeys)
      .where(liveKeyOf(viewer, keyId, spec.kind))
      .for('update');
    if (!before) throw new AppError('NotFound', spec.unknownMessage);
    const change = {
      name: input.name,
      spendLimitNanos: dollarsToNanos(input.budget),
      spendLimitPeriod: input.budgetType,
      ...spec.updated(input),
      ...controlsOf(input),
    };
    const row = await withMaker(tx, await changeLiveKey(tx, spec, viewer, keyId, change, now));
    const key = spec.toContract(row, await spentThisPeriod(tx, row, now), now);
    const changes = changesBetween(spec.settingsOf(spec.toContract({ ...before, madeBy: row.madeBy }, nothingSpent, now)), spec.settingsOf(key));
    if (Object.keys(changes).length > 0) {
      await recordAudit(tx, { organizationId: viewer.organizationId, actor: actorOf(viewer), action: 'key.updated', target: row.name, changes });
    }
    return key;
  });
}

/**
 * A new value for the same key (id, budget, controls and spend stay). The value it replaces keeps
 * authenticating until now + overlap (exclusive); an older previous value stops at once.
 */
export async function rollKeyOf<C>(
  db: Database,
  spec: KeyKindSpec<C, never, never>,
  viewer: Acting,
  keyId: string,
  overlapHours: number,
  now: Date,
): Promise<C> {
  const overlap = overlapHours > 0;
  const value = spec.newValue();
  return db.transaction(async (tx) => {
    const key = await changeLiveKey(
      tx,
      spec,
      viewer,
      keyId,
      {
        value: value.stored,
        prefix: value.prefix,
        // The right-hand side reads the row as it was: the value being replaced.
        previousValue: overlap ? sql`${publishableKeys.value}` : null,
        previousValueExpiresAt: overlap ? new Date(now.getTime() + overlapHours * 3_600_000) : null,
        // The one who rolls it is shown the new value: the key is theirs now.
        madeByPersonId: makerIdOf(viewer),
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
    return spec.toContract(await withMaker(tx, key), await spentThisPeriod(tx, key, now), now, value.shown);
  });
}

/**
 * Soft delete: the usage history keeps its key; neither its value nor a previous one authenticates
 * again. The reason the person gave, if any, is recorded with the deletion.
 */
export async function deleteKeyOf(
  db: Database,
  spec: Pick<KeyKindSpec<unknown, never, never>, 'kind' | 'unknownMessage'>,
  viewer: Acting,
  keyId: string,
  now: Date,
  reason?: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [deleted] = await tx
      .update(publishableKeys)
      .set({ deletedAt: now })
      .where(liveKeyOf(viewer, keyId, spec.kind))
      .returning({ name: publishableKeys.name });
    if (!deleted) throw new AppError('NotFound', spec.unknownMessage);
    await recordAudit(tx, {
      organizationId: viewer.organizationId,
      actor: actorOf(viewer),
      action: 'key.deleted',
      target: deleted.name,
      changes: reason ? initialValues({ reason }) : {},
    });
  });
}
