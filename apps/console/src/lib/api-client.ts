import { emailNotVerifiedSchema, problemSchema } from '@meterway/contracts';
import type { z } from 'zod';
import { apiBaseUrl } from '../config/runtime-config';
import { ApiError, RequestAbortedError } from './api-error';
import { showOrganizationInTab, tabOrganization } from './tab-organization';

export { ApiError, RequestAbortedError } from './api-error';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type QueryValue = string | number | boolean | null | undefined;

export type ApiRequestOptions = {
  method?: Method;
  /** Sent as JSON. */
  body?: unknown;
  /** Appended to the path; undefined and null values are left out. */
  query?: Readonly<Record<string, QueryValue>>;
  signal?: AbortSignal;
};

/**
 * Calls the BFF at `path` (spec §7): credentials included, the tab's organisation named
 * (tab-organization.ts), JSON in, JSON or problem+json out.
 * With a `schema`, a successful body is validated and the parsed value returned; a 204 resolves to
 * undefined (validated too, so give no schema, or `z.undefined()`, for an endpoint that answers 204).
 *
 * Rejects with `ApiError` for a non-ok answer, `RequestAbortedError` when `signal` aborts, the
 * schema's error for a body of the wrong shape, and Error('API URL not found') when the page's
 * origin has no API (from `apiBaseUrl()`).
 */
export function apiRequest<Schema extends z.ZodType>(path: string, options: ApiRequestOptions & { schema: Schema }): Promise<z.output<Schema>>;
export function apiRequest(path: string, options?: ApiRequestOptions): Promise<unknown>;
export async function apiRequest(
  path: string,
  { method = 'GET', body, query, signal, schema }: ApiRequestOptions & { schema?: z.ZodType } = {},
): Promise<unknown> {
  const url = apiUrl(path, query);
  const headers: Record<string, string> = { Accept: 'application/json, application/problem+json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const organizationId = tabOrganization();
  if (organizationId) headers['Meterway-Organization'] = organizationId;

  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      credentials: 'include',
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal?.aborted || isAbortError(error)) throw new RequestAbortedError({ cause: error });
    throw error;
  }

  const content = await readBody(response, signal);
  if (!response.ok) {
    // The tab's organisation is no longer the person's: the tab falls back to their current one.
    if (isOrganizationLeft(content)) showOrganizationInTab(null);
    throw new ApiError(response.status, response.statusText, content);
  }
  return schema ? schema.parse(content) : content;
}

/** The api's refusal of a tab that names an organisation the person left (409, code OrganizationLeft). */
export const isOrganizationLeft = (content: unknown): boolean => (content as { code?: unknown } | undefined)?.code === 'OrganizationLeft';

function apiUrl(path: string, query: ApiRequestOptions['query']): string {
  const base = apiBaseUrl().replace(/\/+$/, '');
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) search.append(key, String(value));
  }
  const queryString = search.toString();
  return `${base}${path.startsWith('/') ? path : `/${path}`}${queryString ? `?${queryString}` : ''}`;
}

/** JSON (`application/json`, `application/problem+json`, any `+json`) is parsed; anything else stays text. */
async function readBody(response: Response, signal: AbortSignal | undefined): Promise<unknown> {
  if (response.status === 204) return undefined;
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // The signal can fire while the body streams in.
    if (signal?.aborted || isAbortError(error)) throw new RequestAbortedError({ cause: error });
    throw error;
  }
  if (text === '') return undefined;
  const type = response.headers.get('content-type') ?? '';
  if (!/^application\/(?:[\w.-]+\+)?json\b/i.test(type.trim())) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A body that claims to be JSON but is not: keep what was said rather than lose it.
    return text;
  }
}

const isAbortError = (error: unknown): boolean => error instanceof Error && error.name === 'AbortError';

/**
 * The e-mail of the 401 `{"code":"EmailNotVerified","email":…}` answer (spec §8): the signed-in
 * identity has not verified its address yet, so the console goes to verify-email. Undefined for
 * any other error.
 */
export function isEmailNotVerified(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 401) return undefined;
  const result = emailNotVerifiedSchema.safeParse(error.body);
  return result.success ? result.data.email : undefined;
}

/**
 * A failure's toast text that carries the api's own words for a refusal (a 4xx's problem detail,
 * such as a 409's "An organisation keeps at least one owner"): `Failed to change role: …`. A 5xx
 * or a failure without details gets `fallback` alone. For a mutation's `meta.errorMessage`.
 */
export const withRefusalDetail =
  (fallback: string) =>
  (error: unknown): string => {
    const detail = refusalDetail(error);
    return detail ? `${fallback}: ${detail}` : fallback;
  };

/** The problem detail of a 4xx answer, if it gave one. */
export function refusalDetail(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status < 400 || error.status >= 500) return undefined;
  const problem = problemSchema.safeParse(error.body);
  return problem.success && problem.data.detail.trim() ? problem.data.detail.trim() : undefined;
}
