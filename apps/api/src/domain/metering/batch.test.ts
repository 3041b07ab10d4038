import { describe, expect, it, vi } from 'vitest';
import { batchBy } from './batch.js';

/** Batches that stay running until the test lets them finish, so the next items queue behind them. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('batchBy (group commit)', () => {
  it('runs a lone item at once, and sends what queued behind a running batch as the next one', async () => {
    const batches: number[][] = [];
    const running = gate();
    const submit = batchBy(
      () => 'one key',
      async (items: number[]) => {
        batches.push(items);
        await running.opened;
        return items.map((item) => ({ ok: true as const, value: item * 10 }));
      },
    );

    const submitted = Promise.all([1, 2, 3, 4].map((item) => submit(item)));
    running.open();
    const results = await submitted;

    expect(results).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('keeps groups apart and fails only the items whose outcome failed', async () => {
    const batches: string[][] = [];
    const running = gate();
    const submit = batchBy(
      (item: string) => item[0]!,
      async (items: string[]) => {
        batches.push(items);
        await running.opened;
        return items.map((item) => (item.endsWith('!') ? { ok: false as const, error: new Error(`refused ${item}`) } : { ok: true as const, value: item }));
      },
    );

    const submitted = Promise.allSettled(['a1', 'b1', 'a2!', 'b2'].map((item) => submit(item)));
    running.open();
    const results = await submitted;

    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message))).toEqual([
      'a1',
      'b1',
      'refused a2!',
      'b2',
    ]);
    expect(batches).toEqual([['a1'], ['b1'], ['a2!'], ['b2']]);
  });

  it('with a linger, sends a lone item at once but lets a batch that has company wait for more', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      const batches: number[][] = [];
      const running = gate();
      const submit = batchBy(
        () => 'one key',
        async (items: number[]) => {
          batches.push(items);
          await running.opened;
          return items.map((item) => ({ ok: true as const, value: item }));
        },
        { lingerMs: 5 },
      );

      const first = submit(1);
      expect(batches).toEqual([[1]]);
      const queued = [2, 3].map((item) => submit(item));
      running.open();
      await first;
      // 2 and 3 queued behind the first batch: more is coming, so they wait the linger for it.
      await vi.advanceTimersByTimeAsync(4);
      const late = [4, 5].map((item) => submit(item));
      expect(batches).toEqual([[1]]);
      await vi.advanceTimersByTimeAsync(1);
      await Promise.all([...queued, ...late]);
      expect(batches).toEqual([[1], [2, 3, 4, 5]]);

      // Alone again: no wait.
      const alone = submit(6);
      expect(batches).toEqual([[1], [2, 3, 4, 5], [6]]);
      await alone;
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects every item of a batch whose run threw, and keeps serving later ones', async () => {
    let fail = true;
    const submit = batchBy(
      () => 'k',
      async (items: number[]) => {
        if (fail) throw new Error('database gone');
        return items.map((item) => ({ ok: true as const, value: item }));
      },
    );

    await expect(submit(1)).rejects.toThrow('database gone');
    fail = false;
    await expect(submit(2)).resolves.toBe(2);
  });
});
