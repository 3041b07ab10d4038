import type { Database } from '@meterway/db';
import { type Admit, createAdmission } from './admission.js';
import { createForwardedRecords, type ForwardedRecords } from './forwarded.js';
import { createHoldStocks } from './hold-stock.js';
import { createKeyCache, type KeyCache } from './key-cache.js';
import { createUnknownKeys, type UnknownKeys } from './unknown-keys.js';
import { deletePastAllowances } from './allowances.js';
import { deletePastCallerHours } from './caller-hours.js';
import { deleteExpiredAnswers, type ResponseCache, responseCacheOn } from './response-cache.js';
import { createRateWindows, deletePastWindows, type RateWindows } from './rate-windows.js';
import { type AfterAnswer, createSettlements } from './settle-after-answer.js';
import { type HoldId, type Metered, release, releaseExpired } from './settlement.js';

export type MeterOptions = {
  db: Database;
  /** How long a hold lives (RESERVATION_TTL_MS): a crashed instance's are swept after it. */
  reservationTtlMs: number;
  /** Where the sweeper's failures go: it runs on its own, with no caller to answer. */
  onSweepError: (error: unknown) => void;
};

/**
 * What one api instance keeps to meter calls: its copy of the keys and its count of unknown ones,
 * the rate windows it counts, the holds it reserved ahead, the batches it sends, its settlements in
 * flight and the records of calls forwarded. The app creates one at start, hands it to the gateway
 * and the key routes, and closes it at shutdown; two apps in one process (tests, benches) never
 * share any of it.
 */
export type Meter = {
  keys: KeyCache;
  /** Key values presented that matched no key, per client address (unknown-keys.ts). */
  unknownKeys: UnknownKeys;
  /** Request windows of keys and of their clients' addresses (rate-windows.ts). */
  rate: RateWindows;
  /** Reserves a call's worst case against the credit and the key's budget (admission.ts). Each admitted call is then settled or given back, once. */
  admit: Admit;
  /** The call is about to reach the provider (forwarded.ts). */
  forwarding: ForwardedRecords['mark'];
  /** Charges an answered call what it used, after its answer is out (settle-after-answer.ts). */
  settle: (call: Metered, after: AfterAnswer) => void;
  /** Keys' cached answers (response-cache.ts). */
  responseCache: ResponseCache;
  /** Gives a call's hold back: the provider cannot bill it. */
  release: (hold: HoldId) => Promise<void>;
  /** A key changed on this instance: its holds reserved ahead go back at once. */
  forgetKey: (keyId: string) => void;
  /** How many holds this instance reserved ahead and keeps unused (metrics). */
  spareHolds: () => number;
  /** Until every answer sent so far is charged. */
  settling: () => Promise<void>;
  /** Until every answer sent is charged and every hold reserved ahead is back: the database at rest, as far as this instance goes. */
  atRest: () => Promise<void>;
  close: () => Promise<void>;
};

export function createMeter({ db, reservationTtlMs, onSweepError }: MeterOptions): Meter {
  const stocks = createHoldStocks(db);
  // Admitted and not yet answered or given back: their settlements are on their way.
  let callsInFlight = 0;
  const settlements = createSettlements(db, () => callsInFlight);
  const admission = createAdmission(db, { stocks, settlements, reservationTtlMs });
  const rate = createRateWindows(db);
  const forwarded = createForwardedRecords(db);
  // Often enough that an expired hold is back within half its lifetime, at most every 30 seconds;
  // past rate windows, callers' allowances of periods that ended before yesterday, callers' hours
  // older than two days (client addresses are kept no longer) and expired cached answers go too.
  const sweep = async (now: Date) => {
    await releaseExpired(db, now);
    await deletePastWindows(db, now);
    await deletePastAllowances(db, now);
    await deletePastCallerHours(db, now);
    await deleteExpiredAnswers(db, now);
  };
  const sweeper = setInterval(() => void sweep(new Date()).catch(onSweepError), Math.min(30_000, reservationTtlMs / 2));
  const settling = () => settlements.settling();
  const atRest = async () => {
    await Promise.all([settling(), stocks.giveBack()]);
  };
  return {
    keys: createKeyCache(db),
    unknownKeys: createUnknownKeys(),
    rate,
    admit: async (input) => {
      const admitted = await admission(input);
      callsInFlight++;
      return admitted;
    },
    forwarding: forwarded.mark,
    settle: (call, after) => {
      callsInFlight--;
      settlements.afterAnswer(call, after);
    },
    responseCache: responseCacheOn(db),
    release: (hold) => {
      callsInFlight--;
      return release(db, [hold]);
    },
    forgetKey: stocks.forgetKey,
    spareHolds: stocks.spareCount,
    settling,
    atRest,
    close: async () => {
      clearInterval(sweeper);
      rate.close();
      await forwarded.close();
      // Spare holds go back, and answers already sent are charged, before the database goes.
      await atRest();
    },
  };
}
