import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.js';
import { decodePageToken, encodePageToken, readPageQuery } from './page-token.js';

const context = { secret: 'a-secret-of-at-least-thirty-two-characters', scope: 'chat-completions:org-a:all-keys', asc: false };
const cursor = { createdAt: new Date('2026-11-21T10:00:00.123Z'), id: 'cc0042', direction: 'next' as const };

const rejects = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'BadRequest', message: 'Invalid page token.' });
    return;
  }
  throw new Error('the token was accepted');
};

describe('page tokens', () => {
  it('round-trips the cursor to the millisecond and is URL-safe', () => {
    const token = encodePageToken(context, cursor);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodePageToken(context, token, 'next')).toEqual(cursor);
    expect(readPageQuery(context, { previousPageToken: encodePageToken(context, { ...cursor, direction: 'previous' }) })).toEqual({
      ...cursor,
      direction: 'previous',
    });
  });

  it('reads no cursor on the first page, empty parameters included', () => {
    expect(readPageQuery(context, {})).toBeUndefined();
    expect(readPageQuery(context, { nextPageToken: '', previousPageToken: '' })).toBeUndefined();
  });

  it('rejects a changed payload, a changed signature and another secret', () => {
    const token = encodePageToken(context, cursor);
    const [payload = '', signature = ''] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), id: 'cc0001' })).toString('base64url');
    rejects(() => decodePageToken(context, `${forged}.${signature}`, 'next'));
    rejects(() => decodePageToken(context, `${payload}.${signature.slice(0, -2)}AA`, 'next'));
    rejects(() => decodePageToken({ ...context, secret: 'another-secret-of-thirty-two-characters' }, token, 'next'));
  });

  it('rejects a token of another scope, sort order or direction', () => {
    const token = encodePageToken(context, cursor);
    rejects(() => decodePageToken({ ...context, scope: 'chat-completions:org-b:all-keys' }, token, 'next'));
    rejects(() => decodePageToken({ ...context, asc: true }, token, 'next'));
    rejects(() => decodePageToken(context, token, 'previous'));
  });

  it('rejects malformed tokens, even when signed', () => {
    for (const token of ['abc', '.', 'a.b.c', '%%%.%%%', `${Buffer.from('{}').toString('base64url')}.x`])
      rejects(() => decodePageToken(context, token, 'next'));
    // Signed with the right key but not a cursor: still a 400, never a 500.
    for (const body of ['not json', '[]', JSON.stringify({ createdAt: 'yesterday', id: 'cc1', direction: 'next', asc: false, scope: context.scope })]) {
      const payload = Buffer.from(body).toString('base64url');
      const signature = createHmac('sha256', context.secret).update(`page-token.v1.${payload}`).digest('base64url');
      rejects(() => decodePageToken(context, `${payload}.${signature}`, 'next'));
    }
  });

  it('refuses both tokens at once', () => {
    const next = encodePageToken(context, cursor);
    const previous = encodePageToken(context, { ...cursor, direction: 'previous' });
    expect(() => readPageQuery(context, { nextPageToken: next, previousPageToken: previous })).toThrow(AppError);
  });
});
