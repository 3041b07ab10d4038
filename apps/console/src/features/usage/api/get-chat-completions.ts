import { chatCompletionPageSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ListRequest } from '../../../components/pager';
import { apiRequest } from '../../../lib/api-client';
import type { UsageKeyFilter } from '../key-filter-params';

// GET /bff/chat-completions (spec §7): one page of the organisation's metered calls, optionally one key's (of either kind).

export type ChatCompletionsRequest = ListRequest & UsageKeyFilter;

export const getChatCompletions = (request: ChatCompletionsRequest, signal?: AbortSignal) =>
  apiRequest('/bff/chat-completions', { query: request, schema: chatCompletionPageSchema, signal });

/** Every page of the list; a mutation that changes usage invalidates this. */
export const chatCompletionsQueryKey = ['chat-completions'] as const;

export const chatCompletionsQueryOptions = (request: ChatCompletionsRequest) =>
  queryOptions({
    queryKey: [...chatCompletionsQueryKey, request],
    queryFn: ({ signal }) => getChatCompletions(request, signal),
    meta: { silent: true, errorMessage: 'Failed to load chat completions' },
  });

export const useChatCompletions = (request: ChatCompletionsRequest) => useQuery(chatCompletionsQueryOptions(request));
