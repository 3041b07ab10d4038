import type { FastifyRequest } from 'fastify';

/**
 * Kratos' three content-negotiation tests (identity-protocol.md §0). `fetch()` sends
 * `Accept: *\/*`, which negotiates to text/html: SPAs must ask for JSON explicitly.
 */
type Range = { type: string; subtype: string; q: number };

function parseAccept(header: string | undefined): Range[] {
  if (!header) return [];
  return header.split(',').flatMap((part) => {
    const [mediaType = '', ...params] = part.trim().split(';');
    const [type, subtype] = mediaType.trim().toLowerCase().split('/');
    if (!type || !subtype) return [];
    const qParam = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    const q = qParam ? Number.parseFloat(qParam.slice(2)) : 1;
    return [{ type, subtype, q: Number.isFinite(q) ? q : 0 }];
  });
}

/** The offer the Accept header prefers; ties go to the earlier offer, no header to the first. */
function negotiate(header: string | undefined, offers: string[]): string {
  const ranges = parseAccept(header);
  if (ranges.length === 0) return offers[0] ?? '';
  let best = offers[0] ?? '';
  let bestQ = -1;
  for (const offer of offers) {
    const [type, subtype] = offer.split('/');
    const matching = ranges
      .filter((range) => (range.type === '*' || range.type === type) && (range.subtype === '*' || range.subtype === subtype))
      .sort((a, b) => specificity(b) - specificity(a));
    const q = matching[0]?.q ?? 0;
    if (q > bestQ && q > 0) {
      best = offer;
      bestQ = q;
    }
  }
  return best;
}

const specificity = (range: Range) => (range.type === '*' ? 0 : range.subtype === '*' ? 1 : 2);

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
