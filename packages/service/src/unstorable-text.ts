import type { FastifyInstance } from 'fastify';

/**
 * U+0000, or half of a UTF-16 surrogate pair: text Postgres cannot store (text and jsonb refuse
 * NUL, jsonb refuses a lone surrogate), which would otherwise surface as a failed query (500).
 */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorable = (text: string) => text.includes('\u0000') || loneSurrogate.test(text);

/** True when any string in `value` (keys included, at any depth) is unstorable; walked without recursion. */
export function hasUnstorableText(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (unstorable(item)) return true;
    } else if (item && typeof item === 'object') {
      for (const [key, inner] of Object.entries(item)) {
        if (unstorable(key)) return true;
        pending.push(inner);
      }
    }
  }
  return false;
}

/**
 * Refuses such text in the query, the path or the body of the scope's routes before any handler
 * reads it, with the service's own 400 (`badRequest()`).
 */
export function refuseUnstorableText(app: FastifyInstance, badRequest: () => Error): void {
  app.addHook('preValidation', async (request) => {
    if (hasUnstorableText(request.query) || hasUnstorableText(request.params) || hasUnstorableText(request.body)) throw badRequest();
  });
}
