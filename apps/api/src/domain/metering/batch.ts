/** One item's outcome in a batch: its value, or the error that item alone failed with. */
export type Outcome<Result> = { ok: true; value: Result } | { ok: false; error: unknown };

/**
 * Group commit for one process: items submitted under the same group key while that group's
 * previous batch is still running are sent together as the next batch. Alone, an item runs at
 * once (no added wait); under load, one round trip serves every call that queued behind it.
 * `linger` (for items nobody waits on) answers, when a batch's turn comes, how long it should wait
 * first for the items it knows are on their way (0: none): under load, fewer and larger batches.
 */
export function batchBy<Item, Result>(
  groupOf: (item: Item) => string,
  run: (items: Item[]) => Promise<Outcome<Result>[]>,
  { maxBatch = 64, linger = () => 0 }: { maxBatch?: number; linger?: () => number } = {},
): (item: Item) => Promise<Result> {
  type Waiter = { item: Item; resolve: (value: Result) => void; reject: (error: unknown) => void };
  const queues = new Map<string, Waiter[]>();

  async function drain(group: string, queue: Waiter[]) {
    while (queue.length > 0) {
      const lingerMs = queue.length < maxBatch ? linger() : 0;
      if (lingerMs > 0) await new Promise((resolve) => setTimeout(resolve, lingerMs));
      const batch = queue.splice(0, maxBatch);
      let outcomes: Outcome<Result>[];
      try {
        outcomes = await run(batch.map((waiter) => waiter.item));
      } catch (error) {
        outcomes = batch.map(() => ({ ok: false, error }));
      }
      batch.forEach((waiter, index) => {
        const outcome = outcomes[index] ?? { ok: false, error: new Error('batch returned no outcome') };
        if (outcome.ok) waiter.resolve(outcome.value);
        else waiter.reject(outcome.error);
      });
    }
    queues.delete(group);
  }

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      const group = groupOf(item);
      const queue = queues.get(group);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      const fresh: Waiter[] = [{ item, resolve, reject }];
      queues.set(group, fresh);
      void drain(group, fresh);
    });
}
