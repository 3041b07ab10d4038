import { MutationCache, QueryCache, QueryClient, type DefaultOptions } from '@tanstack/react-query';
import { ApiError } from './api-error';
import { type NotifyMeta, reportQueryError } from './notify';

declare module '@tanstack/react-query' {
  // `meta: { silent: true }` and `meta: { errorMessage }` are typed on every query and mutation.
  interface Register {
    queryMeta: NotifyMeta;
    mutationMeta: NotifyMeta;
  }
}

/**
 * The app's QueryClient. Every failed query and mutation reaches reportQueryError, the one place
 * failures become a 'Wooops!' toast (or a log line when marked silent); components do not toast
 * errors themselves. Tests pass their own defaults (no retries).
 */
export function createQueryClient(defaultOptions: DefaultOptions = {}): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: (error, query) => reportQueryError(error, query.meta) }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _onMutateResult, mutation) => reportQueryError(error, mutation.options.meta),
    }),
    defaultOptions: {
      ...defaultOptions,
      queries: {
        // A 4xx says what it means (signed out, forbidden, not found): asking again only delays it.
        retry: (count, error) => count < 1 && !(error instanceof ApiError && error.status < 500),
        refetchOnWindowFocus: false,
        staleTime: 30_000,
        ...defaultOptions.queries,
      },
    },
  });
}
