import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import type Stripe from 'stripe';
import { billingCustomers } from '../../db/schema/index.js';
import { callStripe } from './stripe-call.js';

export type Organization = { organizationId: string; organizationName: string; email: string };

/** The organisation's Stripe Customer (cus_…), if it has one. */
export async function storedCustomer(db: Database, organizationId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ customerId: billingCustomers.customerId })
    .from(billingCustomers)
    .where(and(eq(billingCustomers.organizationId, organizationId), eq(billingCustomers.provider, 'stripe')))
    .limit(1);
  return row?.customerId;
}

/**
 * The organisation's Stripe Customer, created on first need. Concurrent first top-ups may each
 * create one; the first stored wins and every caller uses it (the others stay empty at Stripe).
 */
export async function ensureCustomer(stripe: Stripe, db: Database, organization: Organization): Promise<string> {
  const existing = await storedCustomer(db, organization.organizationId);
  if (existing) return existing;
  const created = await callStripe('create a customer', () =>
    stripe.customers.create({ name: organization.organizationName, email: organization.email, metadata: { organizationId: organization.organizationId } }),
  );
  await db.insert(billingCustomers).values({ organizationId: organization.organizationId, provider: 'stripe', customerId: created.id }).onConflictDoNothing();
  const winner = await storedCustomer(db, organization.organizationId);
  if (!winner) throw new Error(`organisation ${organization.organizationId} has a billing customer at another provider`);
  return winner;
}
