import { problemSchema } from '@meterway/contracts';
import { jsonOf, nastyString, serverProblems } from '@meterway/service/testing';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';

/**
 * What only the api's fuzzing suite needs beside the shared helpers of `@meterway/service/testing`:
 * forged page tokens, and the two error shapes its failures must have (problem details, and
 * OpenAI's error object under /v1).
 */

/** Forged page tokens: the token format with a made-up signature, junk, and tokens that are too long. */
export const forgedPageToken: fc.Arbitrary<string> = fc.oneof(
  fc
    .record({
      createdAt: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString()),
      id: fc.oneof(fc.uuid(), nastyString),
      direction: fc.constantFrom('next', 'previous'),
      asc: fc.boolean(),
      scope: fc.oneof(fc.constantFrom('persons', 'feedback', 'chat-completions'), nastyString),
    })
    .chain((payload) =>
      fc
        .base64String({ minLength: 40, maxLength: 44 })
        .map((signature) => `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature.replace(/=+$/, '')}`),
    ),
  fc.base64String({ maxLength: 200 }),
  fc.constantFrom('.', '..', 'a.b.c', 'e30.', '.e30', 'bnVsbA.AAAA', 'x'.repeat(600), '%00.%00'),
  nastyString,
);

export type Family = 'problem' | 'openai' | 'any';

/**
 * What is wrong with an answer to a malformed request: a 5xx, a failure that is not in the
 * route's error shape or says nothing, or internals in the body. An empty list means fine.
 */
export function answerProblems(family: Family, response: LightMyRequestResponse): string[] {
  const problems = serverProblems(response);
  const status = response.statusCode;
  if (status < 400 || family === 'any') return problems;
  const json = jsonOf(response.body);
  if (!json.ok) return [...problems, `a ${status} without a JSON body`];
  const body = json.value as any;
  if (family === 'problem') {
    if (!String(response.headers['content-type']).startsWith('application/problem+json')) problems.push(`a ${status} that is not application/problem+json`);
    const parsed = problemSchema.safeParse(body);
    if (!parsed.success) problems.push(`a ${status} that is not a problem: ${response.body.slice(0, 200)}`);
    else if (!parsed.data.detail.trim()) problems.push(`a ${status} with an empty detail`);
    else if (parsed.data.status !== status) problems.push(`a ${status} whose problem says ${parsed.data.status}`);
  } else {
    const error = body?.error;
    const shaped =
      error &&
      typeof error.message === 'string' &&
      error.message.trim() !== '' &&
      typeof error.type === 'string' &&
      typeof error.code === 'string' &&
      (error.param === null || typeof error.param === 'string') &&
      Object.keys(body).length === 1;
    if (!shaped) problems.push(`a ${status} not in OpenAI's error shape: ${response.body.slice(0, 200)}`);
  }
  return problems;
}
