/** Seconds a client is asked to wait when the database does not answer (a restart takes a few). Both services send it. */
export const databaseRetryAfterSeconds = 5;

// SQLSTATE class 08 is "connection exception"; 57P01–57P03 are the server shutting down, crashing
// or still starting up. Socket codes are the connection itself failing.
const unavailableCodes = /^(08\w{3}|57P0[123]|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN)$/;
// node-postgres reports a connection that died under a query without any code.
const unavailableMessages =
  /^(Connection terminated( unexpectedly)?|Client has encountered a connection error and is not queryable|timeout exceeded when trying to connect)$/;

/**
 * True when `error` (or what it wraps: the ORM wraps the driver's error in `cause`, a refused
 * connection to several addresses is an AggregateError) says the database cannot be reached, as
 * opposed to a query that failed. Such a request was not served and may simply be sent again.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const pending: unknown[] = [error];
  for (let seen = 0; pending.length > 0 && seen < 16; seen++) {
    const current = pending.shift();
    if (!current || typeof current !== 'object') continue;
    const { code, message, cause, errors } = current as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && unavailableCodes.test(code)) return true;
    if (typeof message === 'string' && unavailableMessages.test(message)) return true;
    pending.push(cause, ...(Array.isArray(errors) ? errors : []));
  }
  return false;
}
