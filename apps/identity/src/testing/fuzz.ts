import { type BodyFormat, jsonOf, percentEncode, serverProblems } from '@meterway/service/testing';
import Fastify, { type FastifyPluginAsync, type LightMyRequestResponse } from 'fastify';

/**
 * What only identity's fuzzing suite needs beside the shared helpers of `@meterway/service/testing`:
 * HTML form bodies, a browser cookie jar over `inject`, the answers a failure may give (Kratos'
 * error envelope, or the flow with a message saying what is wrong), and its route table.
 */

/** A flat form body (`traits.email=…`), as an HTML form posts it. */
function formOf(value: unknown): string {
  const pairs: [string, string][] = [];
  const walk = (prefix: string, item: unknown) => {
    if (item && typeof item === 'object' && !Array.isArray(item))
      for (const [key, inner] of Object.entries(item)) walk(prefix ? `${prefix}.${key}` : key, inner);
    else pairs.push([prefix || 'value', typeof item === 'string' ? item : (JSON.stringify(item) ?? '')]);
  };
  walk('', value);
  return pairs.map(([name, item]) => `${percentEncode(name)}=${percentEncode(item)}`).join('&');
}

/** The HTML form, which identity reads beside JSON (the Kratos browser flows post it). */
export const htmlForm: BodyFormat = {
  contentType: 'application/x-www-form-urlencoded',
  encode: formOf,
  oddities: ['a=1&a=2&traits.email=x&traits.email=y'],
};

/** The Cookie header a browser would send back after these responses (a jar over `inject`). */
export function jarFrom(...responses: LightMyRequestResponse[]): Map<string, string> {
  const jar = new Map<string, string>();
  for (const response of responses) {
    for (const cookie of response.cookies as { name: string; value: string; maxAge?: number }[]) {
      if (cookie.maxAge !== undefined && cookie.maxAge <= 0) jar.delete(cookie.name);
      else jar.set(cookie.name, cookie.value);
    }
  }
  return jar;
}

export const cookieHeader = (jar: Map<string, string>) => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');

/** Messages a flow carries, top-level and on its nodes. */
const flowMessages = (body: any): unknown[] => [...(body?.ui?.messages ?? []), ...((body?.ui?.nodes ?? []) as any[]).flatMap((node) => node?.messages ?? [])];

/**
 * What is wrong with an answer to a malformed request. Failures are Kratos' envelope
 * `{error:{code,status,message}}` (code = the HTTP status), or for a flow submission the flow
 * itself with a message saying what is wrong; redirects go only to the allow-listed origins; no
 * answer hands out a session.
 */
export function answerProblems(response: LightMyRequestResponse, allowedOrigins: readonly string[]): string[] {
  const problems = serverProblems(response);
  const status = response.statusCode;
  for (const cookie of response.cookies as { name: string; value: string }[]) {
    if (cookie.name === 'ory_kratos_session' && cookie.value) problems.push('handed out a session');
  }
  if (status >= 300 && status < 400) {
    const location = String(response.headers.location ?? '');
    let origin = '';
    try {
      origin = new URL(location).origin;
    } catch {
      // not an absolute URL
    }
    if (!allowedOrigins.includes(origin)) problems.push(`redirected to ${location.slice(0, 200)}`);
    return problems;
  }
  if (status < 400) return problems;
  const json = jsonOf(response.body);
  if (!json.ok) return [...problems, `a ${status} without a JSON body`];
  const body = json.value as any;
  const error = body?.error;
  if (error) {
    if (error.code !== status || typeof error.status !== 'string' || typeof error.message !== 'string' || !error.message.trim()) {
      problems.push(`a ${status} with a malformed Kratos error: ${response.body.slice(0, 200)}`);
    }
  } else if (!(status === 400 && body?.ui && flowMessages(body).length > 0)) {
    problems.push(`a ${status} that is neither a Kratos error nor a flow saying what is wrong: ${response.body.slice(0, 200)}`);
  }
  return problems;
}

/**
 * The routes a plugin registers, read with an onRoute hook on a throwaway instance (Fastify has
 * no route list of its own; createApp builds the real one the same way).
 */
export async function routeTableOf<T>(plugin: FastifyPluginAsync<T & Record<never, never>>, deps: T): Promise<string[]> {
  const probe = Fastify({ logger: false });
  const routes: string[] = [];
  probe.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD' && method !== 'OPTIONS') routes.push(`${method} ${route.url}`);
  });
  await probe.register(plugin, deps as never);
  await probe.ready();
  await probe.close();
  return routes;
}
