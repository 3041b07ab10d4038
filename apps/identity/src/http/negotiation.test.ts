import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { acceptsJson, isBrowserRequest, isJsonRequest } from './negotiation.js';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest;

describe('content negotiation', () => {
  it("treats fetch()'s default Accept */* as a browser", () => {
    expect(acceptsJson(request({ accept: '*/*' }))).toBe(false);
    expect(isJsonRequest(request({ accept: '*/*' }))).toBe(false);
    expect(isBrowserRequest(request({ accept: '*/*' }))).toBe(true);
    expect(acceptsJson(request({}))).toBe(false);
  });

  it('falls back to HTML when nothing offered is acceptable, as Kratos defaults', () => {
    expect(acceptsJson(request({ accept: 'image/png' }))).toBe(false);
    expect(isBrowserRequest(request({ accept: 'image/png' }))).toBe(true);
    expect(acceptsJson(request({ accept: 'application/json;q=0' }))).toBe(false);
  });

  it('answers JSON when asked for it', () => {
    expect(acceptsJson(request({ accept: 'application/json' }))).toBe(true);
    expect(isJsonRequest(request({ accept: 'application/json' }))).toBe(true);
    expect(isBrowserRequest(request({ accept: 'application/json' }))).toBe(false);
    expect(acceptsJson(request({ accept: 'text/html;q=0.5, application/json' }))).toBe(true);
  });

  it('counts a JSON body as a JSON submission, but not for flow creation', () => {
    const jsonBody = request({ accept: '*/*', 'content-type': 'application/json; charset=utf-8' });
    expect(isJsonRequest(jsonBody)).toBe(true);
    expect(acceptsJson(jsonBody)).toBe(false);
  });

  it('prefers HTML for a real browser navigation', () => {
    const navigation = request({ accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
    expect(acceptsJson(navigation)).toBe(false);
    expect(isBrowserRequest(navigation)).toBe(true);
  });
});
