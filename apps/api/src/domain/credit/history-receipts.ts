import type { Database } from '@meterway/db';
import { and, eq, inArray } from 'drizzle-orm';
import { autoTopUpCharges, checkoutSessions, type creditEntries } from '../../db/schema/index.js';
import type { PaymentProvider } from '../payments/payment-provider.js';

type CreditEntry = typeof creditEntries.$inferSelect;
type Paid = { id: string; provider: 'stripe' | 'sandbox'; receiptUrl: string | null };

const referencesOf = (rows: CreditEntry[], kind: CreditEntry['kind']) => rows.flatMap((row) => (row.kind === kind && row.reference ? [row.reference] : []));

/**
 * The receipts of a page's paid top-ups (a `top_up`'s reference is its checkout session) and auto
 * top-ups (an `auto_top_up`'s is its charge), by reference: the one the provider gave when the
 * payment was confirmed (Stripe's receipt_url), else a link the provider running now makes (the
 * sandbox's signed receipt page, which expires, so it is made at each read).
 */
export async function receiptsOf(
  deps: { db: Database; payments: Pick<PaymentProvider, 'name' | 'receiptUrl'> },
  organizationId: string,
  rows: CreditEntry[],
): Promise<Map<string, string>> {
  const topUps = referencesOf(rows, 'top_up');
  const charges = referencesOf(rows, 'auto_top_up');
  const columns = (table: typeof checkoutSessions | typeof autoTopUpCharges) => ({ id: table.id, provider: table.provider, receiptUrl: table.receiptUrl });
  const sessions: Paid[] = topUps.length
    ? await deps.db
        .select(columns(checkoutSessions))
        .from(checkoutSessions)
        .where(and(eq(checkoutSessions.organizationId, organizationId), eq(checkoutSessions.status, 'SUCCEEDED'), inArray(checkoutSessions.id, topUps)))
    : [];
  const paidCharges: Paid[] = charges.length
    ? await deps.db
        .select(columns(autoTopUpCharges))
        .from(autoTopUpCharges)
        .where(and(eq(autoTopUpCharges.organizationId, organizationId), eq(autoTopUpCharges.status, 'succeeded'), inArray(autoTopUpCharges.id, charges)))
    : [];
  const linked = (paid: Paid, of: Parameters<NonNullable<PaymentProvider['receiptUrl']>>[0]) =>
    paid.receiptUrl ?? (paid.provider === deps.payments.name ? deps.payments.receiptUrl?.(of) : undefined);
  const receipts = [
    ...sessions.map((paid) => [paid.id, linked(paid, { organizationId, checkoutSessionId: paid.id })] as const),
    ...paidCharges.map((paid) => [paid.id, linked(paid, { organizationId, autoTopUpChargeId: paid.id })] as const),
  ];
  return new Map(receipts.flatMap(([id, url]) => (url ? [[id, url] as const] : [])));
}
