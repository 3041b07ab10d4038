import type { DisputeStatus } from '../db/schema/index.js';

/**
 * The reference model of one organisation's money for the model-based ledger test
 * (money-model.test.ts): what the balance, the debt, the holds, each grant and each auto top-up
 * charge should be, written as plainly as the rules in docs/payments.md and
 * docs/promotional-credit.md read, with none of the real code's SQL, locks or batching.
 */

export type ModelGrant = { id: string; remaining: bigint; expiresAt: number };

/** What the card network says of a payment (the truth a provider's notice is re-read from), and what the ledger has been told. */
export type Reversals = { refunded: bigint; disputes: Map<string, { amount: bigint; status: DisputeStatus }> };

export type ModelPayment = {
  kind: 'top_up' | 'auto_top_up';
  id: string;
  credit: bigint;
  /** Credit and tax. */
  charged: bigint;
  network: Reversals;
  applied: Reversals;
};

export type ModelCharge = { amount: bigint; status: 'pending' | 'succeeded' | 'failed'; createdAt: number };

export type AutoTopUpModel = { enabled: boolean; threshold: bigint; topUp: bigint; cap: bigint; card: 'succeed' | 'card_declined' | null };

const rank: Record<DisputeStatus, number> = { open: 0, lost: 1, won: 2 };
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const monthStart = (at: number) => Date.UTC(new Date(at).getUTCFullYear(), new Date(at).getUTCMonth(), 1);

/** The credit a payment's refunds and disputes take back, as the notices so far tell it: pro rata, never more than its credit. */
export function takenBack(payment: ModelPayment): bigint {
  let reversed = payment.applied.refunded;
  for (const dispute of payment.applied.disputes.values()) if (dispute.status !== 'won') reversed += dispute.amount;
  if (reversed >= payment.charged) return reversed > 0n ? payment.credit : 0n;
  return (payment.credit * reversed) / payment.charged;
}

export class MoneyModel {
  balance = 0n;
  owed = 0n;
  reserved = 0n;
  /** Σ what settled calls cost. */
  spent = 0n;
  grants: ModelGrant[] = [];
  payments: ModelPayment[] = [];
  charges: ModelCharge[] = [];
  autoTopUp: AutoTopUpModel = { enabled: false, threshold: 5_000_000_000n, topUp: 20_000_000_000n, cap: 100_000_000_000n, card: null };

  constructor(public now: number) {}

  get promotional(): bigint {
    return this.grants.reduce((sum, grant) => sum + grant.remaining, 0n);
  }

  /** What grants past their expiry still hold: no one's to spend until the sweep takes it. */
  get expired(): bigint {
    return this.grants.filter((grant) => grant.expiresAt <= this.now).reduce((sum, grant) => sum + grant.remaining, 0n);
  }

  /** Takes `amount` from the grants, soonest expiry first. */
  private draw(amount: bigint) {
    let left = amount;
    for (const grant of [...this.grants].sort((a, b) => a.expiresAt - b.expiresAt || (a.id < b.id ? -1 : 1))) {
      if (left === 0n) break;
      const taken = min(grant.remaining, left);
      grant.remaining -= taken;
      left -= taken;
    }
  }

  /** A debit other than usage takes paid credit first: grants give only what the balance no longer covers. */
  private keepPromotionalWithinBalance() {
    if (this.promotional > this.balance) this.draw(this.promotional - this.balance);
  }

  /** Credit added (a top-up, a grant, credit given back): it pays what is owed first. */
  credit(amount: bigint, grant?: ModelGrant) {
    if (grant) this.grants.push(grant);
    this.balance += amount;
    const paid = min(this.balance, this.owed);
    this.balance -= paid;
    this.owed -= paid;
    this.keepPromotionalWithinBalance();
  }

  /** Credit taken back (a refund, a dispute): what the balance cannot pay is owed. */
  takeBack(amount: bigint) {
    const taken = min(this.balance, amount);
    this.balance -= taken;
    this.owed += amount - taken;
    this.keepPromotionalWithinBalance();
  }

  /** Whether a hold of `amount` is admitted: the credit free of other holds and of expired grants covers it. */
  admit(amount: bigint): boolean {
    if (this.balance - this.reserved - this.expired < amount) return false;
    this.reserved += amount;
    return true;
  }

  release(hold: bigint) {
    this.reserved = this.reserved > hold ? this.reserved - hold : 0n;
  }

  /**
   * A call's settlement: grants past their expiry are swept first (they pay for nothing), then the
   * call is charged what it cost from the credit, grants first, and what the credit cannot pay is owed.
   */
  settle(hold: bigint, cost: bigint) {
    this.sweep();
    const charged = min(cost, this.balance);
    this.balance -= charged;
    this.owed += cost - charged;
    this.spent += cost;
    this.release(hold);
    this.draw(min(this.promotional, charged));
    if (this.autoTopUp.enabled && this.balance < this.autoTopUp.threshold) this.claimIfDue();
  }

  /** The expiry sweep: every expired grant's whole remainder leaves the balance. */
  sweep() {
    for (const grant of this.grants) {
      if (grant.expiresAt > this.now || grant.remaining === 0n) continue;
      this.balance -= grant.remaining;
      grant.remaining = 0n;
    }
  }

  private chargedThisMonth(): bigint {
    const start = monthStart(this.now);
    return this.charges.filter((charge) => charge.status !== 'failed' && charge.createdAt >= start).reduce((sum, charge) => sum + charge.amount, 0n);
  }

  /** Auto top-up is level-triggered: a charge is due whenever it is on with a card, below the threshold, none is open and the cap allows. */
  get due(): boolean {
    const { enabled, card, threshold, topUp, cap } = this.autoTopUp;
    if (!enabled || !card || this.balance >= threshold) return false;
    if (this.charges.some((charge) => charge.status === 'pending')) return false;
    return this.chargedThisMonth() + topUp <= cap;
  }

  claimIfDue() {
    if (this.due) this.charges.push({ amount: this.autoTopUp.topUp, status: 'pending', createdAt: this.now });
  }

  saveAutoTopUp(settings: Omit<AutoTopUpModel, 'card'>): 'saved' | 'no card' {
    if (settings.enabled && !this.autoTopUp.card) return 'no card';
    this.autoTopUp = { ...this.autoTopUp, ...settings };
    if (settings.enabled) this.claimIfDue();
    else for (const charge of this.charges) if (charge.status === 'pending') charge.status = 'failed';
    return 'saved';
  }

  /** A worker round: claims what is due, then charges the open charge with the card saved now. */
  processCharges() {
    this.claimIfDue();
    for (const charge of this.charges.filter((candidate) => candidate.status === 'pending')) {
      if (this.autoTopUp.card === 'succeed') {
        charge.status = 'succeeded';
        this.credit(charge.amount);
      } else {
        charge.status = 'failed';
        this.autoTopUp.enabled = false;
      }
    }
  }

  /**
   * A refund or dispute notice of a payment, re-read from the network as it is now: the ledger
   * moves by the difference in what its reversals take back. Credit taken from an auto top-up
   * turns auto top-up off.
   */
  applyNotice(payment: ModelPayment, notice: { type: 'refund' } | { type: 'dispute'; disputeId: string }) {
    const before = takenBack(payment);
    if (notice.type === 'refund') {
      if (payment.network.refunded > payment.applied.refunded) payment.applied.refunded = payment.network.refunded;
    } else {
      const truth = payment.network.disputes.get(notice.disputeId)!;
      const recorded = payment.applied.disputes.get(notice.disputeId);
      if (!recorded) payment.applied.disputes.set(notice.disputeId, { ...truth });
      else if (rank[recorded.status] < rank[truth.status]) recorded.status = truth.status;
    }
    const after = takenBack(payment);
    if (after > before) {
      this.takeBack(after - before);
      if (payment.kind === 'auto_top_up') this.autoTopUp.enabled = false;
    } else if (after < before) {
      this.credit(before - after);
    }
  }
}
