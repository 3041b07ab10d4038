import type { Database } from '@meterway/db';
import { desc, eq } from 'drizzle-orm';
import { checkoutSessions, organizations } from '../../db/schema/index.js';
import { nanosToDollars } from '../money.js';
import type { CheckoutSession } from './checkout-sessions.js';

const escape = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);
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
@media print{header,.noprint{display:none}body{background:#fff}.card{border:0}}
</style></head><body><header>Meterway <span>Billing</span></header><main>${body}</main></body></html>`;
}

/** The sandbox's customer portal: every top-up of the organisation with a printable receipt. */
export async function renderInvoices(db: Database, organizationId: string, links: { receipt: (id: string) => string; console: string }): Promise<string> {
  const [organization] = await db.select().from(organizations).where(eq(organizations.id, organizationId));
  const sessions = await db.select().from(checkoutSessions).where(eq(checkoutSessions.organizationId, organizationId)).orderBy(desc(checkoutSessions.createdAt));
  const rows = sessions
    .map(
      (session) => `<tr><td>${date(session.createdAt)}</td><td class="num">${money(session.creditNanos)}</td><td class="num">${money(session.taxNanos)}</td>
<td class="num">${money(session.creditNanos + session.taxNanos)}</td><td>${statusLabel[session.status] ?? session.status}</td>
<td>${session.status === 'SUCCEEDED' ? `<a href="${escape(links.receipt(session.id))}">Receipt</a>` : ''}</td></tr>`,
    )
    .join('');
  return layout(
    'Invoices',
    `<div class="card"><h1 style="margin-top:0">Invoices <span class="badge">Test mode: no real money</span></h1>
<p>${escape(organization?.name ?? '')}</p>
${sessions.length ? `<table><thead><tr><th>Date</th><th class="num">Usage credit</th><th class="num">Tax</th><th class="num">Total</th><th>Status</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : '<p>No top-ups yet.</p>'}
<p class="noprint"><a href="${escape(links.console)}">Back to the console</a></p></div>`,
  );
}

export function renderReceipt(session: CheckoutSession, organizationName: string, links: { invoices: string }): string {
  return layout(
    'Receipt',
    `<div class="card"><h1 style="margin-top:0">Receipt <span class="badge">Test mode</span></h1>
<p>${escape(organizationName)}<br>Paid ${date(session.completedAt ?? session.updatedAt)}<br>Reference ${escape(session.id)}</p>
<table><tbody><tr><td>Usage credit</td><td class="num">${money(session.creditNanos)}</td></tr>
<tr><td>Tax</td><td class="num">${money(session.taxNanos)}</td></tr>
<tr><th>Total</th><th class="num">${money(session.creditNanos + session.taxNanos)}</th></tr></tbody></table>
<p class="noprint"><a href="#" onclick="window.print();return false">Print</a> · <a href="${escape(links.invoices)}">All invoices</a></p></div>`,
  );
}
