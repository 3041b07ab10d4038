import type { UsageDaily, UsageDay } from '@meterway/contracts';
import { HttpResponse, http } from 'msw';
import { testRuntimeConfig } from './runtime-config';

/** GET /bff/usage/daily for route tests: typed factories and a handler that records each query. */

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

/** `count` UTC days ending 2026-03-14, all without usage. */
const emptyDays = (count: number): UsageDay[] =>
  Array.from({ length: count }, (_, i) => ({
    day: new Date(Date.UTC(2026, 2, 14) - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10),
    costByModel: {},
    costByKey: {},
    cost: 0,
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    monthToDateCost: 0,
  }));

export const buildUsageDaily = (overrides: Partial<UsageDaily> = {}): UsageDaily => ({
  days: emptyDays(30),
  models: [],
  keys: [],
  totals: { cost: 0, calls: 0, inputTokens: 0, outputTokens: 0 },
  ...overrides,
});

type Answer = UsageDaily | Response | ((query: URLSearchParams) => UsageDaily | Response | Promise<UsageDaily | Response>);

export const usageHandlers = {
  daily: (answer: Answer) =>
    http.get(`${api}/bff/usage/daily`, async ({ request }) => {
      const result = typeof answer === 'function' ? await answer(new URL(request.url).searchParams) : answer;
      return result instanceof Response ? result : HttpResponse.json(result);
    }),
};
