import { type AlertSettings, alertSettingsSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/alert-settings: when the organisation is e-mailed about its balance and key budgets.

export const getAlertSettings = (signal?: AbortSignal): Promise<AlertSettings> => apiRequest('/bff/alert-settings', { schema: alertSettingsSchema, signal });

export const loadAlertSettingsFailed = 'Failed to load alert settings';

export const alertSettingsQueryOptions = () =>
  queryOptions({
    queryKey: ['alert-settings'],
    queryFn: ({ signal }) => getAlertSettings(signal),
    meta: { errorMessage: loadAlertSettingsFailed },
  });

export const useAlertSettings = () => useQuery(alertSettingsQueryOptions());
