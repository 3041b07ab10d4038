import { Button, Card, Group, Stack, TagsInput, Text, Title } from '@mantine/core';
import { type AlertSettings, maxKeyBudgetPercents } from '@meterway/contracts';
import { useForm } from '@mantine/form';
import { DollarInput } from '../../../components/dollar-input';
import { notifySuccess } from '../../../lib/notify';
import { loadAlertSettingsFailed, useAlertSettings } from '../api/get-alert-settings';
import { useUpdateAlertSettings } from '../api/update-alert-settings';
import { type AlertFormValues, alertFormValuesOf, alertSettingsOf, validateAlertForm } from '../alert-form-schema';

/** The dashboard's e-mail alerts: the low-balance threshold and the key-budget percentages. */
export function AlertsSection() {
  const { data: settings, isError } = useAlertSettings();
  return (
    <Stack gap="sm">
      <Title order={2} size="h3">
        Alerts
      </Title>
      <Card withBorder padding="lg">
        {settings ? <AlertsForm settings={settings} /> : <Text c="gray.7">{isError ? loadAlertSettingsFailed : 'Loading...'}</Text>}
      </Card>
    </Stack>
  );
}

function AlertsForm({ settings }: { settings: AlertSettings }) {
  const form = useForm<AlertFormValues>({ initialValues: alertFormValuesOf(settings), validate: validateAlertForm });
  const update = useUpdateAlertSettings();
  const save = (values: AlertFormValues) =>
    update.mutate(alertSettingsOf(values), {
      onSuccess: (saved) => {
        form.setInitialValues(alertFormValuesOf(saved));
        form.setValues(alertFormValuesOf(saved));
        notifySuccess('Alert settings saved');
      },
    });

  return (
    // noValidate: the messages come from the contract, not from the browser.
    <form noValidate onSubmit={form.onSubmit(save)}>
      <Stack gap="md">
        <Text size="sm">We e-mail your organisation's owners, admins and billing members once each time a threshold is crossed.</Text>
        <DollarInput
          label="Low balance"
          description="Alert when the credit balance falls below this amount; $0 turns it off"
          {...form.getInputProps('lowBalance')}
        />
        <TagsInput
          label="Key budget percentages"
          description={`Alert when a key's spending this month reaches these percentages of its budget (up to ${maxKeyBudgetPercents}); none turns it off`}
          descriptionProps={{ c: 'gray.7' }}
          placeholder="Add a percentage and press Enter"
          data={['50', '80', '90', '100']}
          maxTags={maxKeyBudgetPercents}
          {...form.getInputProps('keyBudgetPercents')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={update.isPending}>
            Save alerts
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
