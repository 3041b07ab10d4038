import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { LRUCache } from 'lru-cache';
import { admitHolds, type PresentedKey, Refusal, StaleKey } from './admit-calls.js';
import type { Allowance } from './allowances.js';
import type { GatewayKey } from './find-key.js';
import { release } from './settlement.js';

/**
 * Spare holds a stock starts with; it tops up once half are in use, and doubles them (up to the
 * most) whenever calls find none left or use half within growWithinMs of the last top-up, so a
 * busy caller's stock tops up about twice a second, not every few calls: each top-up locks the
 * organisation's balance row, which every settlement of its calls needs too.
 */
const firstSpareHolds = 16;
const mostSpareHolds = 256;
const growWithinMs = 500;
/** What must stay free beyond a stock, as a multiple of it: a stock is at most 1/64 of what is free. */
const keepFreeFactor = 63n;
/** A key change made on another instance stops this instance's stock admissions within this. */
export const stockTrustMs = 100;
/** A stock without calls for this long gives its holds back. */
const idleMs = 1_000;
/** After a refusal (near exhaustion) the key gets no stock for this long: its calls are admitted one by one. */
const pausedMs = 1_000;

/** `usableUntil` is wall-clock time (the holds' expiry is), kept early so a call keeps most of its hold's lifetime. */
type Spare = { id: string; usableUntil: number };

/**
 * Holds one instance reserved ahead of a key's calls, all of one size, so a call that fits takes
 * one without a round trip. They are ordinary reservations (app.admit_calls, every check included),
 * settled or released like any other; only their admission happened earlier.
 */
type Stock = {
  presented: PresentedKey;
  period: string;
  /** For a key that caps its callers' spend, the stock is one caller's, counted against its allowances. */
  allowances: Allowance[];
  amount: bigint;
  ttlMs: number;
  /** How many spare holds it keeps: as many as calls of the key come in while a top-up is on its way. */
  target: number;
  /** When its last top-up started (performance.now()). */
  toppedUpAt: number;
  spare: Spare[];
  topping: Promise<void> | undefined;
  closed: boolean;
  idle: NodeJS.Timeout;
};

const namesOf = (allowances: Allowance[]) => allowances.map((allowance) => allowance.name).join(' ');

const nameOf = (presented: PresentedKey, period: string, allowances: Allowance[]) => `${presented.value} ${period} ${namesOf(allowances)}`;

export type HoldStocks = {
  /**
   * A hold of this key's stock for a call whose worst case is `worst`, without a round trip, when the
   * stock is for the key exactly as the caller checked it, confirmed by the database within
   * stockTrustMs, and its holds are that large; otherwise undefined and the call is admitted exactly.
   */
  take: (presented: PresentedKey, period: string, worst: bigint, allowances: Allowance[]) => { id: string; amount: bigint } | undefined;
  /**
   * After a call of this key was admitted exactly (its admission started at `startedAt`, performance.now()): the key as
   * presented was confirmed then, so the stock may serve the next calls; one is started, with holds
   * twice this call's worst case, when the same caller's previous call was admitted exactly under
   * idleMs before, unless the key is near exhaustion or the call was a previous value's.
   */
  afterAdmission: (presented: PresentedKey, period: string, worst: bigint, startedAt: number, ttlMs: number, allowances: Allowance[]) => void;
  /**
   * Gives back the stocks (of one organisation, or all) and waits until they are back: before a
   * call is capped or refused against what is free, at shutdown, and in tests that read the
   * database at rest.
   */
  giveBack: (organizationId?: string) => Promise<void>;
  /** A key changed on this instance (edited, rolled, deleted): its stocks go back at once. */
  forgetKey: (keyId: string) => void;
  /** How many spare holds the stocks keep now (metrics). */
  spareCount: () => number;
};

/** A refusal pauses the stocks of the key, or of the one caller whose allowance ran out. */
const pauseNameOf = (presented: PresentedKey, allowances: Allowance[]) => `${presented.key.id} ${namesOf(allowances)}`;

/** This instance's stocks of holds reserved ahead, one per key as presented and period (and caller, for a key that caps its callers). */
export function createHoldStocks(db: Database): HoldStocks {
  const byName = new Map<string, Stock>();
  const pausedUntil = new LRUCache<string, number>({ max: 10_000 });
  /**
   * When each caller's last call admitted exactly, with no stock, started (performance.now()). A stock starts with
   * a caller's second such call within idleMs: a visitor of a web page who sends a message now and then
   * is admitted call by call, rather than having holds reserved for each call that it never uses and
   * that go back a second later (each top-up and each release locks the organisation's balance row).
   */
  const aloneAt = new LRUCache<string, number>({ max: 10_000 });
  const returning = new Set<Promise<void>>();
  /**
   * When an app.admit_calls that succeeded for a key (as this instance read it) last started
   * (performance.now()). Shared by the key's stocks, one per caller: any of them confirms the key
   * row (a block or an edit is a new version), so a key with many callers is not checked once per caller.
   */
  const confirmedAt = new WeakMap<GatewayKey, number>();
  const confirm = (key: GatewayKey, startedAt: number) => confirmedAt.set(key, Math.max(confirmedAt.get(key) ?? 0, startedAt));
  /** Keys with a top-up on its way, which confirms them when it succeeds. */
  const confirming = new WeakSet<GatewayKey>();

  /** Gives holds back in the background, tracked so giveBack can wait; a failure leaves them to expire. */
  function returnHolds(stock: Stock, ids: string[]): Promise<void> {
    const organizationId = stock.presented.key.organizationId;
    const returned: Promise<void> = release(
      db,
      ids.map((id) => ({ organizationId, id })),
    )
      .catch(() => undefined)
      .finally(() => returning.delete(returned));
    returning.add(returned);
    return returned;
  }

  /** Closes a stock: its spare holds go back (those in use are settled by their calls), and so do any a top-up in flight brings. */
  function close(stock: Stock): void {
    if (stock.closed) return;
    stock.closed = true;
    clearTimeout(stock.idle);
    const name = nameOf(stock.presented, stock.period, stock.allowances);
    if (byName.get(name) === stock) byName.delete(name);
    void returnHolds(
      stock,
      stock.spare.splice(0).map((spare) => spare.id),
    );
    if (stock.topping) {
      const topping = stock.topping;
      returning.add(topping);
      void topping.finally(() => returning.delete(topping));
    }
  }

  /**
   * Reserves the holds the stock lacks, and confirms the key as presented either way (with no hold
   * missing it reserves nothing and only checks). Near exhaustion (Refusal) or a changed key the
   * stock closes; the next call is admitted exactly, on its own.
   */
  function topUp(stock: Stock): void {
    if (stock.topping || stock.closed) return;
    const started = Date.now();
    const startedAt = performance.now();
    stock.toppedUpAt = startedAt;
    const ids = Array.from({ length: Math.max(0, stock.target - stock.spare.length) }, () => randomUUID());
    const key = stock.presented.key;
    confirming.add(key);
    stock.topping = admitHolds(db, {
      presented: stock.presented,
      now: new Date(started),
      period: stock.period,
      ids,
      amounts: ids.map(() => stock.amount),
      expiresAt: new Date(started + stock.ttlMs),
      keepFree: stock.amount * BigInt(stock.target) * keepFreeFactor,
      allowances: stock.allowances,
    }).then(
      async () => {
        stock.topping = undefined;
        confirming.delete(key);
        confirm(key, startedAt);
        if (stock.closed) return returnHolds(stock, ids);
        const usableUntil = started + Math.min(30_000, stock.ttlMs / 4);
        stock.spare.push(...ids.map((id) => ({ id, usableUntil })));
      },
      (error: unknown) => {
        stock.topping = undefined;
        confirming.delete(key);
        // A changed key stops all its stocks at once, not only this caller's.
        if (error instanceof StaleKey) confirmedAt.delete(key);
        if (error instanceof Refusal) pausedUntil.set(pauseNameOf(stock.presented, stock.allowances), Date.now() + pausedMs);
        close(stock);
      },
    );
  }

  function take(presented: PresentedKey, period: string, worst: bigint, allowances: Allowance[]) {
    const stock = byName.get(nameOf(presented, period, allowances));
    if (!stock) return undefined;
    if (stock.presented.key !== presented.key) {
      // The key was read again since (it changed): this stock was checked against the old row.
      close(stock);
      return undefined;
    }
    const sinceConfirmed = performance.now() - (confirmedAt.get(presented.key) ?? 0);
    if (worst > stock.amount || sinceConfirmed > stockTrustMs) return undefined;
    const now = Date.now();
    if ((stock.spare[0]?.usableUntil ?? Infinity) <= now) {
      void returnHolds(
        stock,
        stock.spare.filter((spare) => spare.usableUntil <= now).map((spare) => spare.id),
      );
      stock.spare = stock.spare.filter((spare) => spare.usableUntil > now);
    }
    // Oldest first: the top-ups append.
    const spare = stock.spare.shift();
    if (!spare) {
      stock.target = Math.min(stock.target * 2, mostSpareHolds);
      topUp(stock);
      return undefined;
    }
    stock.idle.refresh();
    const runningLow = stock.spare.length <= stock.target / 2;
    if (runningLow && !stock.topping && performance.now() - stock.toppedUpAt < growWithinMs) stock.target = Math.min(stock.target * 2, mostSpareHolds);
    // One top-up at a time confirms the key for all its stocks.
    if (runningLow || (sinceConfirmed > stockTrustMs / 2 && !confirming.has(presented.key))) topUp(stock);
    return { id: spare.id, amount: stock.amount };
  }

  function afterAdmission(presented: PresentedKey, period: string, worst: bigint, startedAt: number, ttlMs: number, allowances: Allowance[]) {
    if (presented.value !== presented.key.value) return;
    const pauseName = pauseNameOf(presented, allowances);
    if ((pausedUntil.get(pauseName) ?? 0) > Date.now()) return;
    pausedUntil.delete(pauseName);
    const name = nameOf(presented, period, allowances);
    let stock = byName.get(name);
    if (stock && (stock.presented.key !== presented.key || worst > stock.amount)) {
      close(stock);
      stock = undefined;
    }
    if (!stock) {
      const previous = aloneAt.get(name);
      if (previous === undefined || startedAt - previous > idleMs) {
        aloneAt.set(name, startedAt);
        return;
      }
      aloneAt.delete(name);
      stock = {
        presented,
        period,
        allowances,
        amount: 2n * worst,
        ttlMs,
        target: firstSpareHolds,
        toppedUpAt: startedAt,
        spare: [],
        topping: undefined,
        closed: false,
        idle: setTimeout(() => close(stock!), idleMs).unref(),
      };
      byName.set(name, stock);
    }
    confirm(presented.key, startedAt);
    stock.idle.refresh();
    topUp(stock);
  }

  return {
    take,
    afterAdmission,
    giveBack: async (organizationId) => {
      for (const stock of [...byName.values()]) {
        if (organizationId === undefined || stock.presented.key.organizationId === organizationId) close(stock);
      }
      await Promise.all([...returning]);
    },
    forgetKey: (keyId) => {
      for (const stock of [...byName.values()]) if (stock.presented.key.id === keyId) close(stock);
    },
    spareCount: () => {
      let count = 0;
      for (const stock of byName.values()) count += stock.spare.length;
      return count;
    },
  };
}
