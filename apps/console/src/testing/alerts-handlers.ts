import type { AlertSettings } from '@meterway/contracts';
import { HttpResponse, http } from 'msw';
import { problem, type RecordedRequest } from './keys-handlers';
import { testRuntimeConfig } from './runtime-config';

/**
 * MSW handlers for the dashboard's alert settings. `get` is also every test's default (the
 * dashboard always loads them); `update` records the PUT body in `requests` and answers it back,
 * or `failure` as problem details.
 */

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

export const defaultAlertSettings: AlertSettings = { lowBalance: 5, keyBudgetPercents: [50, 80, 100] };

export const alertsHandlers = {
  get: (settings: AlertSettings = defaultAlertSettings) => http.get(`${api}/bff/alert-settings`, () => HttpResponse.json(settings)),
  getFailure: (status = 500) => http.get(`${api}/bff/alert-settings`, () => problem(status)),
  update: ({ requests, failure }: { requests?: RecordedRequest[]; failure?: number } = {}) =>
    http.put(`${api}/bff/alert-settings`, async ({ request }) => {
      const body = (await request.json()) as AlertSettings;
      requests?.push({ body });
      return failure ? problem(failure) : HttpResponse.json({ ...body, keyBudgetPercents: [...body.keyBudgetPercents].sort((a, b) => a - b) });
    }),
};
