import type { Dispatcher } from 'undici';

/** How many body pieces may wait for the reader before the provider's socket is paused. */
const piecesBeforePause = 16;

/**
 * One request to the provider as undici's dispatcher reports it, through its handler callbacks
 * (no stream object per call: the cheapest way undici offers): whether the whole request was
 * written, then the status, then the body's pieces, read with backpressure. The caller's signal
 * aborts it.
 */
export class ProviderExchange implements Dispatcher.DispatchHandler {
  /** The whole request was written to the provider's socket: from here on it may bill the call. */
  delivered = false;
  /** The response's status, once its headers came. */
  status = 0;
  #pieces: Buffer[] = [];
  #ended = false;
  #error: Error | undefined;
  #abort: ((error: Error) => void) | undefined;
  #resume: (() => void) | undefined;
  #paused = false;
  /** Read whole (text()): never paused. */
  #whole = false;
  #wake: { resolve: () => void; reject: (error: Error) => void } | undefined;
  readonly #signal: AbortSignal;
  readonly #onAbort = () => this.#abort?.(this.#signal.reason as Error);

  constructor(signal: AbortSignal) {
    this.#signal = signal;
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Resolves with the status once the response's headers came; rejects with why they did not. */
  async response(): Promise<number> {
    while (!this.status) await this.#changed();
    return this.status;
  }

  /** The body's pieces as they come, to its end. */
  async *body(): AsyncGenerator<Buffer> {
    for (;;) {
      if (this.#pieces.length > 0) {
        const pieces = this.#pieces;
        this.#pieces = [];
        this.#unpause();
        yield* pieces;
      } else if (this.#ended) {
        return;
      } else {
        await this.#changed();
      }
    }
  }

  /** The whole body as text, read without pausing (the body() generator's turns cost more than a JSON answer's few pieces). */
  async text(): Promise<string> {
    this.#whole = true;
    this.#unpause();
    while (!this.#ended) await this.#changed();
    return Buffer.concat(this.#pieces).toString('utf8');
  }

  #unpause(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#resume?.();
  }

  #changed(): Promise<void> {
    if (this.#error) return Promise.reject(this.#error);
    return new Promise((resolve, reject) => (this.#wake = { resolve, reject }));
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    if (this.#error) wake?.reject(this.#error);
    else wake?.resolve();
  }

  #finish(): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#notify();
  }

  onConnect(abort: (error?: Error) => void): void {
    this.#abort = abort;
    if (this.#signal.aborted) abort(this.#signal.reason as Error);
  }

  onBodySent(): void {
    // The body is one buffer: written whole, or not at all.
    this.delivered = true;
  }

  onHeaders(status: number, _headers: Buffer[], resume: () => void): boolean {
    this.status = status;
    this.#resume = resume;
    this.#notify();
    return true;
  }

  onData(piece: Buffer): boolean {
    this.#pieces.push(piece);
    this.#notify();
    this.#paused = !this.#whole && this.#pieces.length >= piecesBeforePause;
    return !this.#paused;
  }

  onComplete(): void {
    this.#ended = true;
    this.#finish();
  }

  onError(error: Error): void {
    this.#error = error;
    this.#finish();
  }
}
