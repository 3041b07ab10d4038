import type { AuditAction, AuditChanges } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { type Actor, initialValues, recordAudit } from '../audit/record-audit.js';
import { nanosToDecimalDollars, nanosToDollars } from '../money.js';
import type { Posted } from './ledger.js';

/** An amount as the audit log names it: `$12.50`, `-$0.000617`, exact, at least to the cent. */
export function dollarsText(nanos: bigint): string {
  const exact = nanosToDecimalDollars(nanos < 0n ? -nanos : nanos);
  const [whole, fraction = ''] = exact.split('.');
  return `${nanos < 0n ? '-' : ''}$${whole}.${fraction.padEnd(2, '0')}`;
}

/**
 * Records a change of an organisation's credit, in the transaction that posted it: the amount as
 * the target, the balance before → after in dollars (and what it owes, when that moved), and any
 * details (a reason, the top-up) as values without a before.
 */
export async function recordCreditAudit(
  tx: Database,
  entry: {
    organizationId: string;
    actor: Actor;
    action: AuditAction;
    amountNanos: bigint;
    posted: Extract<Posted, { posted: true }>;
    details?: Record<string, unknown>;
  },
): Promise<void> {
  const { posted } = entry;
  const changes: AuditChanges = { balance: { from: nanosToDollars(posted.balanceBeforeNanos), to: nanosToDollars(posted.balanceAfterNanos) } };
  if (posted.owedAfterNanos !== posted.owedBeforeNanos)
    changes.owed = { from: nanosToDollars(posted.owedBeforeNanos), to: nanosToDollars(posted.owedAfterNanos) };
  await recordAudit(tx, {
    organizationId: entry.organizationId,
    actor: entry.actor,
    action: entry.action,
    target: dollarsText(entry.amountNanos),
    changes: { ...changes, ...initialValues(entry.details ?? {}) },
  });
}
