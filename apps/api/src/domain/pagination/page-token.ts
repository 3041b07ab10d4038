import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../../errors/app-error.js';

/**
 * Where a page starts: the (createdAt, id) of a row on the page the token was handed out with,
 * and which way to read from it.
 */
export type PageCursor = { createdAt: Date; id: string; direction: 'next' | 'previous' };

/**
 * What a token is only valid for. `scope` names the list and everything that narrows it (the
 * organisation, a filter), so a token never crosses from one list, tenant or filter to another.
 */
export type PageTokenContext = { secret: string; scope: string; asc: boolean };

const payloadSchema = z.strictObject({
  createdAt: z.iso.datetime({ precision: 3 }),
  id: z.string().min(1),
  direction: z.enum(['next', 'previous']),
  asc: z.boolean(),
  scope: z.string(),
});

// Signatures of page tokens are domain-separated from anything else the secret may ever sign.
const sign = (secret: string, payload: string) => createHmac('sha256', secret).update(`page-token.v1.${payload}`).digest();

// Named as a field, so a client can tell a stale page link from any other refusal and start over.
const invalid = (direction: PageCursor['direction']) =>
  new AppError('BadRequest', 'Invalid page token.', { errors: [{ field: `${direction}PageToken`, message: 'Invalid page token.' }] });

/** `base64url(JSON).base64url(HMAC-SHA256)`: opaque to the console, tamper-proof for us. */
export function encodePageToken(context: PageTokenContext, cursor: PageCursor): string {
  const payload = Buffer.from(
    JSON.stringify({ createdAt: cursor.createdAt.toISOString(), id: cursor.id, direction: cursor.direction, asc: context.asc, scope: context.scope }),
  ).toString('base64url');
  return `${payload}.${sign(context.secret, payload).toString('base64url')}`;
}

/** The cursor of a token this api signed for exactly this context; anything else is a 400. */
export function decodePageToken(context: PageTokenContext, token: string, direction: PageCursor['direction']): PageCursor {
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length > 0) throw invalid(direction);
  const expected = sign(context.secret, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid(direction);

  let parsed: z.infer<typeof payloadSchema>;
  try {
    parsed = payloadSchema.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    throw invalid(direction);
  }
  if (parsed.scope !== context.scope || parsed.asc !== context.asc || parsed.direction !== direction) throw invalid(direction);
  return { createdAt: new Date(parsed.createdAt), id: parsed.id, direction };
}

export type PageTokens = { nextPageToken?: string | undefined; previousPageToken?: string | undefined };

/**
 * The cursor a list query asks for: none on the first page, else exactly one of the two tokens.
 * An empty parameter counts as absent (a client may send `nextPageToken=` on the first page).
 */
export function readPageQuery(context: PageTokenContext, query: PageTokens): PageCursor | undefined {
  const { nextPageToken: next, previousPageToken: previous } = query;
  if (next && previous) throw new AppError('BadRequest', 'Give nextPageToken or previousPageToken, not both.');
  if (next) return decodePageToken(context, next, 'next');
  if (previous) return decodePageToken(context, previous, 'previous');
  return undefined;
}
