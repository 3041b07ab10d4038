import type { KratosError } from './errors.js';
import type { Flow } from './flow-store.js';

/**
 * What a flow step decided; http/send-outcome.ts turns it into the answer for a browser (a 303 to
 * a screen) or for an API client (JSON).
 */
export type Outcome =
  /**
   * The flow as it now is: JSON clients get it with `status`; browsers are sent to `screen` to show it.
   * `csrf: 'caller'` masks the CSRF node with the caller's own token (a submit's answer), `'flow'`
   * with the one the flow was issued with.
   */
  | {
      kind: 'render';
      flow: Flow;
      status: number;
      screen: string;
      screenStatus?: 302 | 303;
      csrf?: 'caller' | 'flow';
      extra?: () => Promise<Record<string, unknown>>;
    }
  /** Both kinds of client are sent elsewhere. */
  | { kind: 'redirect'; to: string; status?: 302 | 303 }
  /** The step is done: browsers go to `redirectTo`, JSON clients get `body()`. */
  | { kind: 'success'; redirectTo: string; body: () => Promise<unknown> }
  /** A Kratos error envelope, for either kind of client. */
  | { kind: 'error'; error: KratosError };

export const redirect = (to: string, status: 302 | 303 = 303): Outcome => ({ kind: 'redirect', to, status });

export const failure = (error: KratosError): Outcome => ({ kind: 'error', error });
