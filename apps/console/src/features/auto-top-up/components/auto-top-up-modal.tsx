import { Alert, Button, Group, Modal, Stack, Switch } from '@mantine/core';
import { type AutoTopUp, maxAutoTopUpMonthlyCap, maxAutoTopUpThreshold, maxCheckoutAmount, minCheckoutAmount, problemSchema } from '@meterway/contracts';
import { useForm } from '@mantine/form';
import { DollarInput } from '../../../components/dollar-input';
import { ApiError } from '../../../lib/api-client';
import { formatMoney } from '../../../lib/format';
import { errorMessage, notifySuccess } from '../../../lib/notify';
import { useUpdateAutoTopUp } from '../api/update-auto-top-up';
import { type AutoTopUpFormValues, autoTopUpFormValuesOf, autoTopUpInputOf, cardNeededMessage, validateAutoTopUpForm } from '../auto-top-up-form-schema';

type AutoTopUpModalProps = { opened: boolean; onClose: () => void; settings: AutoTopUp };

export function AutoTopUpModal({ opened, onClose, settings }: AutoTopUpModalProps) {
  return (
    <Modal opened={opened} onClose={onClose} title="Auto top-up">
      {/* Mounted while open only, so each opening starts from the saved settings. */}
      {opened && <AutoTopUpForm settings={settings} onDone={onClose} />}
    </Modal>
  );
}

/** The api's refusal (a 409 when turned on without a card): its title and its words. */
function refusalOf(error: unknown): { title: string; detail?: string } {
  const problem = error instanceof ApiError ? problemSchema.safeParse(error.body) : undefined;
  return problem?.success ? { title: problem.data.title, detail: problem.data.detail } : { title: errorMessage(error) };
}

function AutoTopUpForm({ settings, onDone }: { settings: AutoTopUp; onDone: () => void }) {
  const hasCard = settings.paymentMethod !== null;
  const form = useForm<AutoTopUpFormValues>({
    initialValues: autoTopUpFormValuesOf(settings),
    validate: (values) => validateAutoTopUpForm(values, hasCard),
  });
  const update = useUpdateAutoTopUp();
  const save = (values: AutoTopUpFormValues) =>
    update.mutate(autoTopUpInputOf(values), {
      onSuccess: () => {
        notifySuccess('Auto top-up saved');
        onDone();
      },
    });
  const refusal = update.isError ? refusalOf(update.error) : undefined;
  // Off without a card it cannot be turned on; on without one (a card removed at the provider) it can still be turned off.
  const switchLocked = !hasCard && !form.values.enabled;

  return (
    // noValidate: the messages come from the contract, not from the browser.
    <form noValidate onSubmit={form.onSubmit(save)}>
      <Stack gap="md">
        <Switch
          label="Turn on auto top-up"
          disabled={switchLocked}
          description={hasCard ? undefined : cardNeededMessage}
          // Mantine's dimmed grey misses WCAG AA contrast on white.
          styles={{ description: { color: 'var(--mantine-color-gray-7)' } }}
          {...form.getInputProps('enabled', { type: 'checkbox' })}
        />
        <DollarInput
          label="When the balance falls below"
          description={`The threshold, up to ${formatMoney(maxAutoTopUpThreshold, { omitZeroCents: true })}`}
          data-autofocus
          {...form.getInputProps('thresholdAmount')}
        />
        <DollarInput
          label="Add this amount"
          description={`Each charge, ${formatMoney(minCheckoutAmount, { omitZeroCents: true })} to ${formatMoney(maxCheckoutAmount, { omitZeroCents: true })}`}
          {...form.getInputProps('topUpAmount')}
        />
        <DollarInput
          label="Monthly cap"
          description={`At most this much in charges each calendar month (UTC), up to ${formatMoney(maxAutoTopUpMonthlyCap, { omitZeroCents: true })}`}
          {...form.getInputProps('monthlyCapAmount')}
        />
        {refusal && (
          <Alert color="red" variant="light" role="alert" title={refusal.title}>
            {refusal.detail}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={update.isPending}>
            Save auto top-up
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
