import type { FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';

/**
 * Kratos' three content-negotiation tests (identity-protocol.md §0). `fetch()` sends
 * `Accept: *\/*`, which negotiates to text/html: SPAs must ask for JSON explicitly.
 * No Accept header, or nothing acceptable, is the first offer (Kratos' default).
 */
function negotiate(accept: string | undefined, offers: [string, ...string[]]): string {
  return new Negotiator({ headers: { accept } }).mediaType(offers) ?? offers[0];
}

/** Flow submissions and logout: Accept negotiates to JSON, or the body is JSON. */
export function isJsonRequest(request: FastifyRequest): boolean {
  const contentType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (contentType === 'application/json') return true;
  return negotiate(request.headers.accept, ['text/html', 'text/*', '*/*', 'application/json']) === 'application/json';
}

/** Flow creation and redirects: only the Accept header counts. */
export function acceptsJson(request: FastifyRequest): boolean {
  return negotiate(request.headers.accept, ['text/html', 'application/json']) === 'application/json';
}

/** The verification submit: a browser unless Accept negotiates to JSON. */
export function isBrowserRequest(request: FastifyRequest): boolean {
  return negotiate(request.headers.accept, ['text/html', 'application/json']) === 'text/html';
}
