import { randomBytes } from 'node:crypto';
import type { WebhookEventType } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import type { CreditEntryKind, KeyKind } from '../../db/schema/index.js';

/** What each event's `data` holds (docs/webhooks.md); money in dollars, as the BFF speaks it. */
export type WebhookEventData = {
  'credit.added': { entryId: string; kind: CreditEntryKind; amount: number; balanceAfterAmount: number };
  'balance.low': { balanceAmount: number; thresholdAmount: number };
  'key.budget_threshold': { keyId: string; name: string; kind: KeyKind; percent: number; spentAmount: number; budgetAmount: number };
  'auto_top_up.failed': { chargeId: string; reason: string; amount: number };
  'key.blocked_caller': { keyId: string; name: string; kind: KeyKind } & ({ clientAddress: string } | { endUser: string });
};

export type EmittedEvent<T extends WebhookEventType> = { organizationId: string; type: T; data: WebhookEventData[T] };

/** `evt_` and 24 hex digits. */
export const newEventId = () => `evt_${randomBytes(12).toString('hex')}`;

/**
 * Records an event for the organisation's endpoints, in the caller's transaction, so it exists
 * exactly when its cause committed (an outbox): the event and one pending delivery per live
 * endpoint subscribed to its type, in one statement that inserts nothing when nobody listens. The
 * delivery worker (domain/webhooks/deliver-webhooks.ts) sends them after the commit.
 */
export async function emitEvent<T extends WebhookEventType>(tx: Database, event: EmittedEvent<T>): Promise<void> {
  await tx.execute(sql`
    with listening as (
      select id from app.webhook_endpoints
      where organization_id = ${event.organizationId} and deleted_at is null and ${event.type} = any(events)
    ), emitted as (
      insert into app.webhook_events (id, organization_id, type, data)
      select ${newEventId()}, ${event.organizationId}, ${event.type}, ${JSON.stringify(event.data)}::jsonb
      where exists (select 1 from listening)
      returning id, created_at
    )
    insert into app.webhook_deliveries (id, organization_id, event_id, endpoint_id, next_attempt_at, created_at, updated_at)
    select gen_random_uuid(), ${event.organizationId}, emitted.id, listening.id, emitted.created_at, emitted.created_at, emitted.created_at
    from emitted cross join listening`);
}
