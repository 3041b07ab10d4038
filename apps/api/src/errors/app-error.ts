/** The api's error codes and the HTTP status each answers with. */
export const errorStatus = {
  BadRequest: 400,
  Unauthorized: 401,
  /** A card the payment provider refused (Stripe's card_error). */
  PaymentRequired: 402,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  /** A body that is not JSON where JSON is required. */
  UnsupportedMediaType: 415,
  TooManyRequests: 429,
  Internal: 500,
  ServiceUnavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** The one error type domain code throws; the problem+json plugin turns it into a response. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

/** Text Postgres cannot store (NUL, a lone surrogate), refused before validation. */
export const unstorableText = () => new AppError('BadRequest', 'Text must be valid Unicode without NUL characters (U+0000).');
