import { randomBytes, randomUUID } from 'node:crypto';
import { maxWebhookEndpoints, type WebhookDelivery, type WebhookEndpoint, type WebhookEndpointInput } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, asc, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { type Acting, actorOf, initialValues, recordAudit } from '../audit/record-audit.js';
import { checkEndpointUrl, type Resolve } from './endpoint-address.js';

type Organization = { organizationId: string };
type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** How many deliveries the console sees per endpoint. */
const listedDeliveries = 50;

const toContract = (row: EndpointRow): WebhookEndpoint => ({ id: row.id, url: row.url, events: row.events, createdAt: row.createdAt.toISOString() });

const liveEndpointOf = (viewer: Organization, endpointId: string) =>
  and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.organizationId, viewer.organizationId), isNull(webhookEndpoints.deletedAt));

export async function listWebhookEndpoints(db: Database, viewer: Organization): Promise<WebhookEndpoint[]> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.organizationId, viewer.organizationId), isNull(webhookEndpoints.deletedAt)))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  return rows.map(toContract);
}

/**
 * Registers an endpoint with a new signing secret, shown only in this answer. In production the
 * URL must be https and resolve only to public addresses (400 otherwise). The organisation's
 * endpoints are counted under a lock on its row, so concurrent registrations keep to the limit.
 */
export async function createWebhookEndpoint(
  db: Database,
  viewer: Acting,
  input: { url: string; events: WebhookEndpointInput['events'] },
  options: { production: boolean; resolve?: Resolve; now: Date },
): Promise<WebhookEndpoint> {
  await checkEndpointUrl(input.url, options);
  return db.transaction(async (tx) => {
    await tx.execute(sql`select id from app.organizations where id = ${viewer.organizationId} for update`);
    const [{ count } = { count: 0 }] = await tx
      .select({ count: sql<number>`count(*)::integer` })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.organizationId, viewer.organizationId), isNull(webhookEndpoints.deletedAt)));
    if (count >= maxWebhookEndpoints)
      throw new AppError('Conflict', `An organisation can have at most ${maxWebhookEndpoints} webhook endpoints. Delete one first.`);
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({ id: randomUUID(), organizationId: viewer.organizationId, url: input.url, events: input.events, secret, createdAt: options.now })
      .returning();
    await recordAudit(tx, {
      organizationId: viewer.organizationId,
      actor: actorOf(viewer),
      action: 'webhook_endpoint.created',
      target: input.url,
      changes: initialValues({ events: input.events }),
    });
    return { ...toContract(row!), secret };
  });
}

/** Deletes an endpoint (kept for its deliveries' history); its pending deliveries fail unsent. */
export async function deleteWebhookEndpoint(db: Database, viewer: Acting, endpointId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [deleted] = await tx.update(webhookEndpoints).set({ deletedAt: now }).where(liveEndpointOf(viewer, endpointId)).returning();
    if (!deleted) throw new AppError('NotFound', 'Unknown webhook endpoint.');
    await tx
      .update(webhookDeliveries)
      .set({ status: 'failed', nextAttemptAt: null, updatedAt: now })
      .where(
        and(eq(webhookDeliveries.organizationId, viewer.organizationId), eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')),
      );
    await recordAudit(tx, {
      organizationId: viewer.organizationId,
      actor: actorOf(viewer),
      action: 'webhook_endpoint.deleted',
      target: deleted.url,
      changes: { events: { from: deleted.events } },
    });
  });
}

/** The endpoint's latest deliveries, newest first, each with its kept attempts, newest first. */
export async function listWebhookDeliveries(db: Database, viewer: Organization, endpointId: string): Promise<WebhookDelivery[]> {
  const [endpoint] = await db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(liveEndpointOf(viewer, endpointId));
  if (!endpoint) throw new AppError('NotFound', 'Unknown webhook endpoint.');
  const deliveries = await db
    .select({
      id: webhookDeliveries.id,
      eventId: webhookDeliveries.eventId,
      type: webhookEvents.type,
      createdAt: webhookDeliveries.createdAt,
      status: webhookDeliveries.status,
      attemptCount: webhookDeliveries.attemptCount,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, and(eq(webhookEvents.organizationId, webhookDeliveries.organizationId), eq(webhookEvents.id, webhookDeliveries.eventId)))
    .where(and(eq(webhookDeliveries.organizationId, viewer.organizationId), eq(webhookDeliveries.endpointId, endpointId)))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(listedDeliveries);
  const attempts =
    deliveries.length === 0
      ? []
      : await db
          .select()
          .from(webhookAttempts)
          .where(
            and(
              eq(webhookAttempts.organizationId, viewer.organizationId),
              inArray(
                webhookAttempts.deliveryId,
                deliveries.map((delivery) => delivery.id),
              ),
            ),
          )
          .orderBy(desc(webhookAttempts.at), desc(webhookAttempts.id));
  return deliveries.map((delivery) => ({
    ...delivery,
    createdAt: delivery.createdAt.toISOString(),
    nextAttemptAt: delivery.status === 'pending' ? (delivery.nextAttemptAt?.toISOString() ?? null) : null,
    attempts: attempts
      .filter((attempt) => attempt.deliveryId === delivery.id)
      .map((attempt) => ({ at: attempt.at.toISOString(), statusCode: attempt.statusCode, error: attempt.error, durationMs: attempt.durationMs })),
  }));
}
