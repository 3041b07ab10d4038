import { z } from 'zod';
import { listQuerySchema, pageOf } from '../common/pagination.js';

/**
 * What a credit history line is (issue #22). From the ledger today: `top_up` (a card top-up),
 * `refund` and `dispute` (credit a provider's refund or dispute took back, negative; a won dispute
 * is a `dispute` line with a positive amount: the credit given back), `adjustment` (an operator's
 * grant or take-back; the note is their reason). Usage charges are not history: they are the chat
 * completions. Credit added while the organisation owes pays the debt first; that payment is
 * folded into the line that added the credit: its `balanceAfter` is after the payment and its note
 * says how much paid what was owed, so `amount` stays what was bought or given.
 * `auto_top_up` is a saved card's charge, `grant` a promotional grant (its note the operator's,
 * `expiresAt` when what is left of it expires), `grant_expiry` what was left of one when it expired.
 */
export const creditHistoryKinds = ['top_up', 'auto_top_up', 'grant', 'grant_expiry', 'refund', 'dispute', 'adjustment'] as const;
export type CreditHistoryKind = (typeof creditHistoryKinds)[number];

export const creditHistoryEntrySchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  kind: z.enum(creditHistoryKinds),
  /** Dollars, signed: positive adds credit, negative takes it back. */
  amount: z.number(),
  /** The balance in dollars after this line (and the debt it paid, if any). */
  balanceAfter: z.number(),
  /** Why: an operator's reason, which top-up a refund or dispute was of, what was owed. */
  note: z.string().nullable(),
  /** A grant's expiry (on its `grant` and `grant_expiry` lines); null for the rest. */
  expiresAt: z.string().nullable(),
  /**
   * The payment provider's receipt of a `top_up` or `auto_top_up` line, where there is one:
   * Stripe's receipt of the charge (its receipt_url, kept when the payment was confirmed; null for
   * a payment confirmed before that was kept), or the sandbox's receipt page (a signed link that
   * works for an hour, like the Invoices link). Null for the other kinds.
   */
  receiptUrl: z.string().nullable(),
});
export type CreditHistoryEntry = z.infer<typeof creditHistoryEntrySchema>;

export const creditHistoryQuerySchema = listQuerySchema;
export type CreditHistoryQuery = z.infer<typeof creditHistoryQuerySchema>;
export const creditHistoryPageSchema = pageOf(creditHistoryEntrySchema);
