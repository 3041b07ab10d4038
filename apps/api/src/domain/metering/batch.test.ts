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

  it('lets a batch wait as long as linger says for the items on their way, and sends it at once when it says 0', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      const batches: number[][] = [];
      let coming = true;
      const submit = batchBy(
        () => 'one key',
        async (items: number[]) => {
          batches.push(items);
          return items.map((item) => ({ ok: true as const, value: item }));
        },
        { linger: () => (coming ? 5 : 0) },
      );

      const early = [1, 2].map((item) => submit(item));
      await vi.advanceTimersByTimeAsync(4);
      const late = [3, 4].map((item) => submit(item));
      expect(batches).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      await Promise.all([...early, ...late]);
      expect(batches).toEqual([[1, 2, 3, 4]]);

      coming = false;
      const alone = submit(5);
      expect(batches).toEqual([[1, 2, 3, 4], [5]]);
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
