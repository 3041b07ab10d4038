import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import escape from 'escape-html';
import { autoTopUpCharges, checkoutSessions, organizations, paymentDisputes } from '../../db/schema/index.js';
import { nanosToDollars } from '../money.js';
import type { CheckoutSession } from './checkout-sessions.js';
import type { CreditedPayment } from './credited-payments.js';

const money = (nanos: bigint) => `$${nanosToDollars(nanos).toFixed(2)}`;
const date = (value: Date) => value.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
const statusLabel: Record<string, string> = { IN_PROGRESS: 'In progress', SUCCEEDED: 'Paid', FAILED: 'Failed', EXPIRED: 'Expired' };

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)} · Meterway</title>
<style>
body{margin:0;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f8f9fa;color:#212529}
header{background:#228be6;color:#fff;height:55px;display:flex;align-items:center;padding:0 24px;font-weight:700;gap:12px}
header span{font-weight:400;opacity:.85}
main{max-width:1000px;margin:32px auto;padding:0 16px}
.card{background:#fff;border:1px solid #dee2e6;border-radius:8px;padding:24px}
.badge{display:inline-block;background:#fff3bf;color:#8a6d00;border-radius:4px;padding:2px 8px;font-size:12px;font-weight:600}
table{width:100%;border-collapse:collapse;margin-top:16px}th,td{text-align:left;padding:10px 8px;border-bottom:1px solid #e9ecef;font-size:14px}
th{color:#868e96;font-weight:600}td.num,th.num{text-align:right}a{color:#1c7ed6}
form{display:inline-flex;gap:4px;margin:0 8px 0 0}input{width:72px;font:inherit;padding:2px 4px}button{font:inherit;cursor:pointer}
@media print{header,.noprint{display:none}body{background:#fff}.card{border:0}}
</style></head><body><header>Meterway <span>Billing</span></header><main>${body}</main></body></html>`;
}

type Dispute = typeof paymentDisputes.$inferSelect;
type PortalLinks = { receipt: (payment: CreditedPayment) => string; reversals: (payment: CreditedPayment) => string; console: string };

/** One line of Invoices: a checkout top-up or an auto top-up charge, and what became of it. */
type Invoice = {
  payment: CreditedPayment;
  what: string;
  createdAt: Date;
  creditNanos: bigint;
  taxNanos: bigint;
  /** Null once paid (then refunds and disputes say what became of it). */
  unpaidStatus: string | null;
  refundedNanos: bigint;
  disputes: Dispute[];
};

/** A paid payment's status: paid, or what refunds and disputes made of it. */
function paidLabel(invoice: Invoice): string {
  const labels = [];
  const charged = invoice.creditNanos + invoice.taxNanos;
  if (invoice.refundedNanos > 0n) labels.push(invoice.refundedNanos >= charged ? 'Refunded' : `Refunded ${money(invoice.refundedNanos)}`);
  for (const dispute of invoice.disputes) labels.push({ open: 'Disputed', won: 'Dispute won', lost: 'Dispute lost' }[dispute.status]);
  return labels.length ? labels.join(', ') : 'Paid';
}

const button = (action: string, url: string, label: string, field = '') =>
  `<form method="post" action="${escape(url)}"><input type="hidden" name="action" value="${action}">${field}<button type="submit">${label}</button></form>`;

/** The card network's side, for trying refunds and disputes offline: what a paid payment can still go through. */
function reversalForms(invoice: Invoice, url: string): string {
  const left = invoice.creditNanos + invoice.taxNanos - invoice.refundedNanos;
  if (invoice.disputes.some((dispute) => dispute.status === 'open')) return button('win', url, 'Win') + button('lose', url, 'Lose');
  if (left <= 0n) return '';
  const amount = `<input name="amount" inputmode="decimal" aria-label="Refund amount in dollars" placeholder="${nanosToDollars(left).toFixed(2)}">`;
  return button('refund', url, 'Refund', amount) + button('dispute', url, 'Dispute');
}

const chargeStatusLabel: Record<string, string> = { pending: 'In progress', processing: 'In progress', failed: 'Failed' };

/** The organisation's top-ups and auto top-up charges, newest first, each with its disputes. */
async function invoicesOf(db: Database, organizationId: string): Promise<Invoice[]> {
  const sessions = await db
    .select()
    .from(checkoutSessions)
    // A setup session (a card saved for auto top-up) took no money.
    .where(and(eq(checkoutSessions.organizationId, organizationId), eq(checkoutSessions.mode, 'payment')));
  const charges = await db.select().from(autoTopUpCharges).where(eq(autoTopUpCharges.organizationId, organizationId));
  const disputes = await db.select().from(paymentDisputes).where(eq(paymentDisputes.organizationId, organizationId)).orderBy(paymentDisputes.createdAt);
  const invoices: Invoice[] = [
    ...sessions.map((session) => ({
      payment: { kind: 'top_up' as const, checkoutSessionId: session.id },
      what: 'Top-up',
      createdAt: session.createdAt,
      creditNanos: session.creditNanos,
      taxNanos: session.taxNanos,
      unpaidStatus: session.status === 'SUCCEEDED' ? null : (statusLabel[session.status] ?? session.status),
      refundedNanos: session.refundedNanos,
      disputes: disputes.filter((dispute) => dispute.checkoutSessionId === session.id),
    })),
    ...charges.map((charge) => ({
      payment: { kind: 'auto_top_up' as const, autoTopUpChargeId: charge.id },
      what: 'Auto top-up',
      createdAt: charge.createdAt,
      creditNanos: charge.amountNanos,
      taxNanos: 0n,
      unpaidStatus: charge.status === 'succeeded' ? null : (chargeStatusLabel[charge.status] ?? charge.status),
      refundedNanos: charge.refundedNanos,
      disputes: disputes.filter((dispute) => dispute.autoTopUpChargeId === charge.id),
    })),
  ];
  return invoices.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

/**
 * The sandbox's customer portal: every top-up and auto top-up charge of the organisation with a
 * printable receipt, and for a paid one the buttons that refund or dispute it (and win or lose the
 * dispute).
 */
export async function renderInvoices(db: Database, organizationId: string, links: PortalLinks): Promise<string> {
  const [organization] = await db.select().from(organizations).where(eq(organizations.id, organizationId));
  const invoices = await invoicesOf(db, organizationId);
  const rows = invoices
    .map((invoice) => {
      const paid = invoice.unpaidStatus === null;
      return `<tr><td>${date(invoice.createdAt)}</td><td>${invoice.what}</td><td class="num">${money(invoice.creditNanos)}</td><td class="num">${money(invoice.taxNanos)}</td>
<td class="num">${money(invoice.creditNanos + invoice.taxNanos)}</td><td>${invoice.unpaidStatus ?? paidLabel(invoice)}</td>
<td>${paid ? `<a href="${escape(links.receipt(invoice.payment))}">Receipt</a>` : ''}</td>
<td class="noprint">${paid ? reversalForms(invoice, links.reversals(invoice.payment)) : ''}</td></tr>`;
    })
    .join('');
  return layout(
    'Invoices',
    `<div class="card"><h1 style="margin-top:0">Invoices <span class="badge">Test mode: no real money</span></h1>
<p>${escape(organization?.name ?? '')}</p>
${invoices.length ? `<table><thead><tr><th>Date</th><th>Payment</th><th class="num">Usage credit</th><th class="num">Tax</th><th class="num">Total</th><th>Status</th><th></th><th class="noprint">Test the card network</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>No top-ups yet.</p>'}
<p class="noprint"><a href="${escape(links.console)}">Back to the console</a></p></div>`,
  );
}

/** `links.invoices` when the receipt was opened from Invoices; a link to the receipt alone leads nowhere else. */
const receiptActions = (links: { invoices?: string }) =>
  `<p class="noprint"><a href="#" onclick="window.print();return false">Print</a>${links.invoices ? ` · <a href="${escape(links.invoices)}">All invoices</a>` : ''}</p>`;

/** `links.invoices` when the receipt was opened from Invoices; a link to the receipt alone leads nowhere else. */
export function renderReceipt(session: CheckoutSession, organizationName: string, links: { invoices?: string }): string {
  return layout(
    'Receipt',
    `<div class="card"><h1 style="margin-top:0">Receipt <span class="badge">Test mode</span></h1>
<p>${escape(organizationName)}<br>Paid ${date(session.completedAt ?? session.updatedAt)}<br>Reference ${escape(session.id)}</p>
<table><tbody><tr><td>Usage credit</td><td class="num">${money(session.creditNanos)}</td></tr>
<tr><td>Tax</td><td class="num">${money(session.taxNanos)}</td></tr>
<tr><th>Total</th><th class="num">${money(session.creditNanos + session.taxNanos)}</th></tr></tbody></table>
${receiptActions(links)}</div>`,
  );
}

/**
 * A succeeded auto top-up charge's receipt: the saved card's charge, no tax. The card is the one
 * saved for auto top-up now (the sandbox keeps none per charge), when there is one.
 */
export function renderAutoTopUpReceipt(
  charge: typeof autoTopUpCharges.$inferSelect,
  organizationName: string,
  card: { brand: string; last4: string } | undefined,
  links: { invoices?: string },
): string {
  const paidWith = card ? `<br>Card ${escape(card.brand.charAt(0).toUpperCase() + card.brand.slice(1))} ending ${escape(card.last4)}` : '';
  return layout(
    'Receipt',
    `<div class="card"><h1 style="margin-top:0">Receipt <span class="badge">Test mode</span></h1>
<p>${escape(organizationName)}<br>Auto top-up paid ${date(charge.updatedAt)}${paidWith}<br>Reference ${escape(charge.id)}</p>
<table><tbody><tr><td>Usage credit (auto top-up)</td><td class="num">${money(charge.amountNanos)}</td></tr>
<tr><th>Total</th><th class="num">${money(charge.amountNanos)}</th></tr></tbody></table>
${receiptActions(links)}</div>`,
  );
}
