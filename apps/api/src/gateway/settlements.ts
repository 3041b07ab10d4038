/**
 * The settlements running after their answer was sent. Shutdown waits for them (the pool must not
 * close under them), and so do tests before they read the ledger.
 */
export function createSettlements() {
  const running = new Set<Promise<unknown>>();
  return {
    track(settlement: Promise<unknown>): void {
      running.add(settlement);
      void settlement.finally(() => running.delete(settlement));
    },
    async settled(): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

export type Settlements = ReturnType<typeof createSettlements>;
