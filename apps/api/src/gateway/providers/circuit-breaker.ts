/** When a provider's circuit opens, and for how long it stays open. */
export type BreakerSettings = { failuresToOpen: number; openMs: number };

/** How a call's try at the provider went, as the breaker counts it. */
export type TryResult = 'succeeded' | 'failed' | 'neither';

/** A call's try at the provider, to be ended with how it went (the first end counts). */
export type Try = { end: (result: TryResult) => void };

/**
 * One provider's circuit breaker, as this instance knows it. Closed, it lets every call through
 * and counts failures in a row; at `failuresToOpen` it opens, and calls skip the provider for
 * `openMs`. Then it lets one call through as a trial (half-open): a success closes it, a failure
 * opens it for another `openMs`. A try that says nothing of the provider (the caller's deadline, a
 * request the provider refused as wrong) is `neither`, and lets the next call be the trial.
 */
export class CircuitBreaker {
  #failures = 0;
  #openUntil = 0;
  #trialUnderWay = false;

  constructor(
    readonly settings: BreakerSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether calls skip the provider (open, or half-open with its trial under way). */
  get open(): boolean {
    return this.#failures >= this.settings.failuresToOpen && (this.#trialUnderWay || this.now() < this.#openUntil);
  }

  /** A try at the provider, or undefined while calls skip it. */
  begin(): Try | undefined {
    if (this.open) return undefined;
    const trial = this.#failures >= this.settings.failuresToOpen;
    if (trial) this.#trialUnderWay = true;
    let ended = false;
    return {
      end: (result) => {
        if (ended) return;
        ended = true;
        this.#ended(result, trial);
      },
    };
  }

  #ended(result: TryResult, trial: boolean): void {
    if (trial) this.#trialUnderWay = false;
    if (result === 'succeeded') this.#failures = 0;
    if (result !== 'failed') return;
    this.#failures++;
    // The failure that opens the circuit, or a failed trial, starts an open period.
    if (trial || this.#failures === this.settings.failuresToOpen) this.#openUntil = this.now() + this.settings.openMs;
  }
}
