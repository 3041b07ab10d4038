// No zod and no contracts here: notify.ts (loaded by every screen) imports these.

/** The messages of spec §8, word for word, by HTTP status. */
export const statusMessages: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** Any other non-ok status (spec §8). */
export const genericErrorMessage = 'Generic Error';

/** A request cancelled through its AbortSignal (spec §8). */
export const requestAbortedMessage = 'Request aborted';

/** A non-ok answer of the BFF: the §8 message for its status, plus everything the answer said. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly statusText: string;
  /** The parsed JSON (problem details, `{code:'EmailNotVerified'}`…), else the text, else undefined. */
  readonly body: unknown;

  constructor(status: number, statusText: string, body: unknown) {
    super(statusMessages[status] ?? genericErrorMessage);
    this.status = status;
    this.statusText = statusText;
    this.body = body;
  }
}

/** Raised instead of the platform's AbortError, so a cancelled call reads 'Request aborted'. */
export class RequestAbortedError extends Error {
  override name = 'RequestAbortedError';

  constructor(options?: ErrorOptions) {
    super(requestAbortedMessage, options);
  }
}
