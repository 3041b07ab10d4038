import { randomUUID } from 'node:crypto';
import { webhookSignatureHeader, type WebhookEventType } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq, sql } from 'drizzle-orm';
import { webhookAttempts, webhookDeliveries } from '../../db/schema/index.js';
import { rowsOf } from '../metering/sql-values.js';
import { nextAttemptAt } from './retry-schedule.js';
import { signatureHeader } from './signature.js';
import type { SendOutcome, WebhookSender } from './webhook-sender.js';

export type WebhookDeliveryDeps = { db: Database; sender: WebhookSender; random?: () => number };

/** A claimed delivery is this instance's for this long: well past the send's timeout, after which another instance may take it. */
const leaseMs = 60_000;
const batchSize = 20;
/** How many attempts each delivery keeps. */
export const keptAttempts = 10;

type Claimed = {
  organization_id: string;
  id: string;
  attempt_count: number;
  event_id: string;
  type: WebhookEventType;
  data: Record<string, unknown>;
  created_at: string;
  url: string;
  secret: string;
  endpoint_deleted: boolean;
};

/**
 * Due deliveries, each taken by one instance (FOR UPDATE SKIP LOCKED) and leased: its next attempt
 * moves past the lease and its attempt count goes up, in one statement, so no transaction stays
 * open while the endpoint is called, and another instance takes it only if this one never records.
 */
async function claimDeliveries(db: Database, now: Date): Promise<Claimed[]> {
  const result = await db.execute(sql`
    update app.webhook_deliveries as d
    set attempt_count = d.attempt_count + 1, next_attempt_at = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
    from (
      select organization_id, id from app.webhook_deliveries
      where status = 'pending' and next_attempt_at <= ${now.toISOString()}::timestamptz
      order by next_attempt_at limit ${batchSize}
      for update skip locked
    ) as picked, app.webhook_events as e, app.webhook_endpoints as ep
    where d.organization_id = picked.organization_id and d.id = picked.id
      and e.organization_id = d.organization_id and e.id = d.event_id and ep.organization_id = d.organization_id and ep.id = d.endpoint_id
    returning d.organization_id, d.id, d.attempt_count, e.id as event_id, e.type, e.data, to_json(e.created_at)#>>'{}' as created_at, ep.url, ep.secret,
      ep.deleted_at is not null as endpoint_deleted`);
  return rowsOf<Claimed>(result);
}

/**
 * Records an attempt's outcome, if the delivery is still the one claimed (the same attempt count):
 * a 2xx succeeds, anything else is retried on the schedule until 24 hours after the event, then
 * fails. Only the latest attempts are kept.
 */
async function recordAttempt(deps: WebhookDeliveryDeps, claimed: Claimed, outcome: SendOutcome, now: Date): Promise<'succeeded' | 'failed' | 'retrying'> {
  const next = outcome.error === null ? null : nextAttemptAt(claimed.attempt_count, new Date(claimed.created_at), now, deps.random);
  const status = outcome.error === null ? 'succeeded' : next === null ? 'failed' : 'pending';
  await deps.db.transaction(async (tx) => {
    const [recorded] = await tx
      .update(webhookDeliveries)
      .set({ status, nextAttemptAt: next, updatedAt: now })
      .where(
        and(
          eq(webhookDeliveries.organizationId, claimed.organization_id),
          eq(webhookDeliveries.id, claimed.id),
          eq(webhookDeliveries.attemptCount, claimed.attempt_count),
          eq(webhookDeliveries.status, 'pending'),
        ),
      )
      .returning({ id: webhookDeliveries.id });
    if (!recorded) return;
    await tx.insert(webhookAttempts).values({ id: randomUUID(), organizationId: claimed.organization_id, deliveryId: claimed.id, at: now, ...outcome });
    await tx.execute(sql`
      delete from app.webhook_attempts where organization_id = ${claimed.organization_id} and delivery_id = ${claimed.id} and id not in (
        select id from app.webhook_attempts where organization_id = ${claimed.organization_id} and delivery_id = ${claimed.id} order by at desc, id limit ${keptAttempts})`);
  });
  return status === 'pending' ? 'retrying' : status;
}

/** The POST of one claimed delivery: the event as JSON, signed with the endpoint's secret. */
function sendDelivery(deps: WebhookDeliveryDeps, claimed: Claimed, now: Date): Promise<SendOutcome> {
  const body = JSON.stringify({ id: claimed.event_id, type: claimed.type, createdAt: new Date(claimed.created_at).toISOString(), data: claimed.data });
  const headers = { [webhookSignatureHeader]: signatureHeader(claimed.secret, body, now), 'Meterway-Event-Id': claimed.event_id };
  return deps.sender.send(claimed.url, headers, body);
}

/**
 * One round of the delivery worker: claims the due deliveries and sends them, all at once, each
 * recorded as it ends. A delivery of an endpoint deleted since it was emitted fails unsent.
 * `now` is the round's clock (tests pass their own).
 */
export async function deliverWebhooks(deps: WebhookDeliveryDeps, now: Date): Promise<{ succeeded: number; retrying: number; failed: number }> {
  const counts = { succeeded: 0, retrying: 0, failed: 0 };
  const claimed = await claimDeliveries(deps.db, now);
  await Promise.all(
    claimed.map(async (delivery) => {
      if (delivery.endpoint_deleted) {
        await failUnsent(deps.db, delivery, now);
        counts.failed += 1;
        return;
      }
      counts[await recordAttempt(deps, delivery, await sendDelivery(deps, delivery, now), now)] += 1;
    }),
  );
  return counts;
}

async function failUnsent(db: Database, delivery: Claimed, now: Date): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status: 'failed', nextAttemptAt: null, updatedAt: now })
    .where(and(eq(webhookDeliveries.organizationId, delivery.organization_id), eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, 'pending')));
}
