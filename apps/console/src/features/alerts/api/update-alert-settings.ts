import { type AlertSettings, alertSettingsSchema } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import { alertSettingsQueryOptions } from './get-alert-settings';

// PUT /bff/alert-settings: answers the settings as saved.

export const updateAlertSettings = (input: AlertSettings): Promise<AlertSettings> =>
  apiRequest('/bff/alert-settings', { method: 'PUT', body: input, schema: alertSettingsSchema });

export const useUpdateAlertSettings = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateAlertSettings,
    meta: { errorMessage: 'Failed to save alert settings' },
    onSuccess: (saved) => queryClient.setQueryData(alertSettingsQueryOptions().queryKey, saved),
  });
};
