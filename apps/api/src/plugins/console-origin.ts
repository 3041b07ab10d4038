import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';

const readOnly = new Set(['GET', 'HEAD', 'OPTIONS']);

const isJson = (contentType: string | undefined) => /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType ?? '');

/**
 * Cross-site request forgery (issue #53): a request that changes something through the console's
 * routes must come from the console. Browsers name the page's origin in `Origin` on every request
 * that is not a GET (a form, a fetch, a body-less POST with text/plain alike), so one from another
 * site is refused here, before its route runs, whatever the cookie's SameSite let through; a
 * same-origin request without an Origin passes by `Sec-Fetch-Site: same-origin`. Bodies must be
 * JSON, which a cross-site form cannot send.
 */
export function requireConsoleOrigin(scope: FastifyInstance, consoleOrigin: string): void {
  // Before anything else runs for the request: the session is not even looked at.
  scope.addHook('onRequest', async (request) => {
    if (readOnly.has(request.method)) return;
    const { origin } = request.headers;
    const fromConsole = origin === consoleOrigin || (origin === undefined && request.headers['sec-fetch-site'] === 'same-origin');
    if (!fromConsole) throw new AppError('Forbidden', 'This request did not come from the Meterway console. Make the change in the console.');
  });
  // Once the body is read (an oversized one is 413 first), before any route sees it.
  scope.addHook('preValidation', async (request) => {
    if (request.body !== undefined && !isJson(request.headers['content-type'])) {
      throw new AppError('UnsupportedMediaType', 'The request body must be JSON (Content-Type: application/json).');
    }
  });
}
