import { createHash } from 'node:crypto';
import type { Database } from '@meterway/db';
import { networkOf } from '@meterway/service';
import { and, eq, gt, gte, notExists, sql } from 'drizzle-orm';
import { stringify } from 'safe-stable-stringify';
import { creditBalances, keySpend, publishableKeys, responseCache } from '../../db/schema/index.js';
import { periodStart } from '../money.js';
import type { Caller } from './allowances.js';
import { rowsOf } from './sql-values.js';

// A key's response cache (issue #24): a non-streamed answer kept for the key's cache time answers
// the same request with the same key again, without a provider, charged nothing. Entries belong to
// one key of one organisation: the lookup names both, so no answer ever crosses organisations.

export type CachedAnswer = typeof responseCache.$inferSelect;
type KeyOf = { organizationId: string; publishableKeyId: string };

/**
 * The request's identity: SHA-256 of its JSON with keys in a fixed order (the same request sent with
 * its fields in another order is the same request) and of the end user who asks it (endUserOf), so
 * one end user is never answered what another asked, nor learns that they asked it — unless the
 * key's owner shares its cache, when the gateway names no end user (cached-answers.ts).
 */
export const requestHashOf = (body: unknown, endUser: string): string =>
  createHash('sha256')
    .update(stringify({ endUser, body }) ?? '')
    .digest('base64url');

/**
 * The key's cached answer to this request, if it has not expired, the organisation owes nothing and
 * the key's budget for the month is not spent: those are refused as a paid call is, never answered
 * from the cache.
 */
export async function findCachedAnswer(db: Database, key: KeyOf, requestHash: string, now: Date): Promise<CachedAnswer | undefined> {
  const [entry] = await db
    .select()
    .from(responseCache)
    .where(
      and(
        eq(responseCache.organizationId, key.organizationId),
        eq(responseCache.publishableKeyId, key.publishableKeyId),
        eq(responseCache.requestHash, requestHash),
        gt(responseCache.expiresAt, now),
        notExists(
          db
            .select({ owes: sql`1` })
            .from(creditBalances)
            .where(and(eq(creditBalances.organizationId, key.organizationId), gt(creditBalances.owedNanos, 0n))),
        ),
        notExists(
          db
            .select({ spent: sql`1` })
            .from(keySpend)
            .innerJoin(publishableKeys, and(eq(publishableKeys.organizationId, keySpend.organizationId), eq(publishableKeys.id, keySpend.publishableKeyId)))
            .where(
              and(
                eq(keySpend.organizationId, key.organizationId),
                eq(keySpend.publishableKeyId, key.publishableKeyId),
                eq(keySpend.periodStart, periodStart(now)),
                gte(keySpend.spentNanos, publishableKeys.spendLimitNanos),
              ),
            ),
        ),
      ),
    );
  return entry;
}

/** Keeps an answer until `expiresAt`; a newer answer to the same request replaces it. */
export async function rememberAnswer(db: Database, entry: CachedAnswer): Promise<void> {
  const { answer, inputTokens, cachedInputTokens, outputTokens, provider, expiresAt } = entry;
  await db
    .insert(responseCache)
    .values(entry)
    .onConflictDoUpdate({
      target: [responseCache.organizationId, responseCache.publishableKeyId, responseCache.requestHash],
      set: { answer, inputTokens, cachedInputTokens, outputTokens, provider, expiresAt },
    });
}

type Hit = KeyOf & {
  completionId: string;
  model: string;
  entry: CachedAnswer;
  priceVersion: string;
  caller: Caller;
  now: Date;
};

/**
 * A hit's row, charged nothing: its tokens are the cached answer's, flagged `cache_hit`; and its
 * caller counted in the callers view like any call's (one statement). No hold, ledger entry or
 * key spend: nothing was spent.
 */
export async function recordCacheHit(db: Database, hit: Hit): Promise<void> {
  const { entry, caller, now } = hit;
  await db.execute(sql`
    with completion as (
      insert into app.chat_completions (
        id, organization_id, publishable_key_id, created_at, model, estimated_input_tokens, input_tokens, cached_input_tokens,
        estimated_input_cost_nanos, input_cost_nanos, output_tokens, output_cost_nanos, total_cost_nanos,
        price_version, end_user, client_network, provider, cache_hit
      ) values (
        ${hit.completionId}, ${hit.organizationId}, ${hit.publishableKeyId}, ${now}, ${hit.model}, ${entry.inputTokens}, ${entry.inputTokens},
        ${entry.cachedInputTokens}, 0, 0, ${entry.outputTokens}, 0, 0,
        ${hit.priceVersion}, ${caller.endUser}, ${networkOf(caller.client)}, ${entry.provider}, true
      )
    )
    insert into app.caller_hours as h (organization_id, publishable_key_id, hour, kind, caller, calls, spent_nanos)
      select ${hit.organizationId}::uuid, ${hit.publishableKeyId}::uuid, date_trunc('hour', ${now}::timestamptz), kind, name, 1, 0
      from (values ('address', ${caller.client}::text), ('end_user', ${caller.endUser}::text)) as callers(kind, name)
      where name is not null
    on conflict (organization_id, publishable_key_id, hour, kind, caller) do update set calls = h.calls + 1`);
}

/** The cache on one database, as the gateway uses it. */
export type ResponseCache = {
  find: (key: KeyOf, requestHash: string, now: Date) => Promise<CachedAnswer | undefined>;
  remember: (entry: CachedAnswer) => Promise<void>;
  recordHit: (hit: Hit) => Promise<void>;
};

export const responseCacheOn = (db: Database): ResponseCache => ({
  find: (key, requestHash, now) => findCachedAnswer(db, key, requestHash, now),
  remember: (entry) => rememberAnswer(db, entry),
  recordHit: (hit) => recordCacheHit(db, hit),
});

/** Deletes up to `limit` expired answers; answers how many went. */
export async function deleteExpiredAnswers(db: Database, now: Date, limit = 10_000): Promise<number> {
  const result = await db.execute(sql`
    delete from app.response_cache
    where ctid = any(array(select ctid from app.response_cache where expires_at <= ${now} limit ${limit}))
    returning 1`);
  return rowsOf(result).length;
}
