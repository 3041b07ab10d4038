import { act } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';

/**
 * Fake timers for each test of the enclosing describe. Real time still moves them
 * (shouldAdvanceTime), so user-event, lazy screens and MSW answer as usual; the returned
 * `advance(ms)` jumps ahead without waiting.
 */
export function withFakeTimers(): (ms: number) => Promise<void> {
  beforeEach(() => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  return async (ms) => {
    await act(() => vi.advanceTimersByTimeAsync(ms));
  };
}
