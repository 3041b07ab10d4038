import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { z } from 'zod';

/**
 * The shared list URL query parameters of spec §2, parsed and validated here once. The URL is
 * user input: a value that does not validate falls back to its default instead of failing the
 * page. Defaults: page 1; every other parameter absent (undefined). An empty value counts as absent.
 */

/** A non-empty text; anything else is absent. */
const text = (max: number) => z.string().min(1).max(max).optional().catch(undefined);

export const listParamsSchema = z.object({
  /** Sent to the list calls, which ignore it (spec §7). 200 is the API's own limit. */
  searchString: text(200),
  /** 1-based; whole and positive, else 1 ("0", "-2", "2.5", "abc" → 1). */
  page: z.coerce.number().int().positive().catch(1),
  sortField: text(100),
  /** 'ASC' or 'DESC' exactly; any other spelling ('asc', 'down') is dropped. */
  sortDirection: z.enum(['ASC', 'DESC']).optional().catch(undefined),
  publishableKeyId: text(200),
  secretKeyId: text(200),
  checkoutSessionId: text(500),
  flowId: text(200),
});

export type ListParams = z.infer<typeof listParamsSchema>;

export const listParamNames = Object.keys(listParamsSchema.shape) as (keyof ListParams)[];

/** The list params of a query string; repeated keys count once (the first). Never throws. */
export function parseListParams(search: URLSearchParams | string): ListParams {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search;
  const raw = Object.fromEntries(listParamNames.map((name) => [name, params.get(name) ?? undefined]));
  return listParamsSchema.parse(raw);
}

/** A change to the list params: undefined removes a parameter; other query parameters are kept. */
export type ListParamsPatch = { [Name in keyof ListParams]?: ListParams[Name] | undefined };

export function applyListParams(search: URLSearchParams, patch: ListParamsPatch): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const [name, value] of Object.entries(patch)) {
    if (value === undefined || value === '') next.delete(name);
    else next.set(name, String(value));
  }
  return next;
}

/** The current list params and a setter that writes them back to the URL (a new history entry). */
export function useListParams() {
  const [searchParams, setSearchParams] = useSearchParams();
  const params = useMemo(() => parseListParams(searchParams), [searchParams]);
  const setParams = useCallback(
    (patch: ListParamsPatch, options?: { replace?: boolean }) => setSearchParams((current) => applyListParams(current, patch), options),
    [setSearchParams],
  );
  return [params, setParams] as const;
}
