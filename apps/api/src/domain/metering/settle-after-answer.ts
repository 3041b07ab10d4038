import type { Database } from '@meterway/db';
import { batchBy, type Outcome } from './batch.js';
import { costOf, type Metered, type Settled, settlementRow, settleRows } from './settlement.js';

export type AfterAnswer = {
  onSettled: (settled: Settled | undefined) => void;
  /** A failed attempt that will be tried again. */
  onRetry: (error: unknown) => void;
  /** The last attempt failed: the call stays uncharged. */
  onError: (error: unknown) => void;
  /** Epoch ms after which no attempt starts: the hold may be swept by then, and the call skipped. */
  retryUntil: number;
};

export type Settlements = {
  /**
   * Settles a call whose answer is already out, without holding the answer back, retrying until it
   * lands or its hold could expire. Tracked so that this instance's admission of the organisation's
   * next call (`settling`) and its shutdown wait for it.
   */
  afterAnswer: (call: Metered, after: AfterAnswer) => void;
  /** Until the settlements this instance has started (of one organisation, or all) are done. */
  settling: (organizationId?: string) => Promise<void>;
};

const firstRetryMs = 100;
const longestRetryMs = 5_000;
/**
 * With this many calls of the instance in flight (admitted, not yet answered), their settlements
 * are on their way: a key's settlement waits settlementLingerMs to take them along. A settlement's
 * fixed part (the function, the balance, budget and ledger rows, the commit) is most of what
 * Postgres spends on a few calls, so at 32 connections batches of ~30 calls rather than ~6 cut its
 * CPU per call by a fifth (bench/README.md). With fewer in flight a settlement goes at once: one
 * call at a time, waiting made each call slower for no gain. Well within forwardedRecordDelayMs,
 * so what a crash can lose does not change.
 */
const lingerFromCallsInFlight = 8;
const settlementLingerMs = 5;

/** This instance's settlements: batched per key and period, retried, and tracked until they land. */
export function createSettlements(db: Database, callsInFlight: () => number = () => 0): Settlements {
  /**
   * Settles a call: the reservation is released, the cost the provider reported is charged to the
   * credit (one ledger entry for the batch, which each completion names; the hold's release makes
   * a retry skip the call, so it is charged once) and to the key's monthly spend, and the
   * completion is recorded with its estimated and actual figures, all in one transaction shared
   * with the other calls of the key settling at the same moment. A report above
   * the hold is charged from the credit no other call holds; what that cannot pay is recorded as
   * unpaid on the row. Undefined when the reservation was already swept.
   */
  const settle = batchBy(
    (call: Metered) => `${call.publishableKeyId}/${call.periodStart}`,
    async (calls): Promise<Outcome<Settled | undefined>[]> => {
      const settled = await settleRows(db, calls[0]!, calls.map(settlementRow), new Date());
      return calls.map((call) => {
        const outcome = settled.get(call.completionId);
        return { ok: true, value: outcome && { totalNanos: costOf(call).totalNanos, ...outcome } };
      });
    },
    { linger: () => (callsInFlight() >= lingerFromCallsInFlight ? settlementLingerMs : 0) },
  );
  // Settlements started and not finished, per organisation.
  const inFlight = new Map<string, Set<Promise<void>>>();

  /** Settles, and on failure (the database unreachable, say) tries again, further apart each time, until `retryUntil`. */
  async function settleRetrying(call: Metered, after: AfterAnswer): Promise<Settled | undefined> {
    for (let wait = firstRetryMs; ; wait = Math.min(wait * 2, longestRetryMs)) {
      try {
        // One transaction: a failed attempt changed nothing, and one that committed unseen leaves no
        // hold behind, so the next attempt skips the call rather than charge it twice.
        return await settle(call);
      } catch (error) {
        if (Date.now() + wait > after.retryUntil) throw error;
        after.onRetry(error);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  function afterAnswer(call: Metered, after: AfterAnswer) {
    let pending = inFlight.get(call.organizationId);
    if (!pending) inFlight.set(call.organizationId, (pending = new Set()));
    // Started on the next turn of the event loop: the answer is written in this one, and building
    // and sending the settlement first would hold it back (≈ 0.3 ms one call at a time).
    const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => settleRetrying(call, after))
      .then(after.onSettled, after.onError)
      .finally(() => {
        pending.delete(done);
        if (pending.size === 0 && inFlight.get(call.organizationId) === pending) inFlight.delete(call.organizationId);
      });
    pending.add(done);
  }

  async function settling(organizationId?: string) {
    const groups = organizationId === undefined ? [...inFlight.values()] : [inFlight.get(organizationId) ?? new Set()];
    await Promise.all(groups.flatMap((group) => [...group]));
  }

  return { afterAnswer, settling };
}
