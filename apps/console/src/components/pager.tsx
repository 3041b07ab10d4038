import { Button, Group, Text } from '@mantine/core';
import { maxPageSize, problemSchema } from '@meterway/contracts';
import { useCallback, useMemo } from 'react';
import { type NavigateOptions, useLocation, useSearchParams } from 'react-router';
import { applyListParams, parseListParams } from '../config/list-params';
import { ApiError } from '../lib/api-error';

/** The tokens of a list answer (spec §3 pagination). */
export type Pagination = { nextPageToken: string | null; previousPageToken: string | null };

/** The query every list call sends (spec §7): order, the token of the page wanted, limit 100, searchString. */
export type ListRequest = {
  asc: boolean;
  nextPageToken?: string;
  previousPageToken?: string;
  limit: number;
  searchString: string;
};

// The token that led to the page sits in the URL beside `page`, so reload, back and a shared
// link show the same page. Only one of the two is ever set.
const tokenParams = ['nextPageToken', 'previousPageToken'] as const;

/** The history state of a page link the api refused and the console replaced with page 1. */
const refusedLinkState = { pageLinkRefused: true };

/**
 * The api's 400 naming a page token: the token is not one it signed for this list, its order or
 * its filter (an old or edited link). The same request without it can succeed.
 */
export function isRefusedPageToken(error: unknown): boolean {
  if (!(error instanceof ApiError) || error.status !== 400) return false;
  const problem = problemSchema.safeParse(error.body);
  return problem.success && (problem.data.errors ?? []).some((issue) => (tokenParams as readonly string[]).includes(issue.field));
}

/**
 * Token paging kept in the URL (spec §4): First drops the token and the page number, Next and
 * Previous store the answer's token and move the page number by one. A page number without a
 * token is page 1, because without a token the api answers the first page.
 */
export function useTokenPaging() {
  const [searchParams, setSearchParams] = useSearchParams();
  const location = useLocation();
  const nextPageToken = searchParams.get('nextPageToken') || undefined;
  const previousPageToken = nextPageToken ? undefined : searchParams.get('previousPageToken') || undefined;
  const listParams = useMemo(() => parseListParams(searchParams), [searchParams]);
  const page = nextPageToken || previousPageToken ? listParams.page : 1;

  const request: ListRequest = {
    asc: listParams.sortDirection === 'ASC',
    ...(nextPageToken ? { nextPageToken } : {}),
    ...(previousPageToken ? { previousPageToken } : {}),
    limit: maxPageSize,
    // Sent, and ignored by the api (spec §7).
    searchString: listParams.searchString ?? '',
  };

  const go = useCallback(
    (nextPage: number | undefined, token?: { name: (typeof tokenParams)[number]; value: string }, options?: NavigateOptions) =>
      setSearchParams((current) => {
        const next = applyListParams(current, { page: nextPage });
        for (const name of tokenParams) next.delete(name);
        if (token) next.set(token.name, token.value);
        return next;
      }, options),
    [setSearchParams],
  );
  const restart = useCallback(() => go(undefined, undefined, { replace: true, state: refusedLinkState }), [go]);

  return {
    page,
    request,
    first: () => go(undefined),
    next: (token: string) => go(page + 1, { name: 'nextPageToken', value: token }),
    previous: (token: string) => go(Math.max(1, page - 1), { name: 'previousPageToken', value: token }),
    /** Page 1 in place of the current link (no history entry), remembering why for `linkRefused`. */
    restart,
    /** This page replaced a link the api refused; any later paging clears it. */
    linkRefused: (location.state as typeof refusedLinkState | null)?.pageLinkRefused === true,
  };
}

export type TokenPaging = ReturnType<typeof useTokenPaging>;

type PagerProps = { paging: TokenPaging; pagination: Pagination };

/** First, Previous, Next and the page label; nothing when the list fits on one page (spec §4). */
export function Pager({ paging, pagination }: PagerProps) {
  const { nextPageToken, previousPageToken } = pagination;
  if (!nextPageToken && !previousPageToken) return null;
  return (
    <Group component="nav" aria-label="Pages" justify="flex-end" gap="xs">
      {previousPageToken && (
        <Text size="sm" c="dimmed" mr="xs">
          Page {paging.page}
        </Text>
      )}
      <Button variant="default" size="xs" disabled={!previousPageToken} onClick={paging.first}>
        First
      </Button>
      <Button variant="default" size="xs" disabled={!previousPageToken} onClick={() => previousPageToken && paging.previous(previousPageToken)}>
        Previous
      </Button>
      <Button variant="default" size="xs" disabled={!nextPageToken} onClick={() => nextPageToken && paging.next(nextPageToken)}>
        Next
      </Button>
    </Group>
  );
}
