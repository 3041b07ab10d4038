import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { creditGrantInputSchema, type Person } from '@meterway/contracts';
import { DollarInput } from '../../../components/dollar-input';
import { formatMoney } from '../../../lib/format';
import { notifySuccess } from '../../../lib/notify';
import { useCreateCreditGrant } from '../api/create-credit-grant';

type GrantCreditFormValues = { amount: number | string; note: string; expiresOn: string };

const contractErrors = schemaResolver(creditGrantInputSchema, { sync: true });

/** Today in UTC, YYYY-MM-DD: the earliest last day (a grant until today is usable until midnight UTC). */
const todayUtc = () => new Date().toISOString().slice(0, 10);

/** The contract's rules, and a last day not already past (the api refuses one too). */
function validateGrant(values: GrantCreditFormValues) {
  const errors = contractErrors(values);
  if (values.amount === '') errors.amount = 'Enter an amount';
  if (!values.expiresOn) errors.expiresOn = 'Choose the last day the credit can be used';
  else if (!errors.expiresOn && values.expiresOn < todayUtc()) errors.expiresOn = 'The last day must be today (UTC) or later';
  return errors;
}

// Mantine's dimmed grey misses WCAG AA contrast on white.
const grey = { c: 'gray.7' };

type GrantCreditModalProps = { person: Person | null; onClose: () => void };

/** A system admin's promotional grant to a person's current organisation (issue #22). */
export function GrantCreditModal({ person, onClose }: GrantCreditModalProps) {
  return (
    <Modal opened={person !== null} onClose={onClose} title="Grant credit">
      {/* Mounted while open only, so each opening starts empty. */}
      {person && <GrantCreditForm person={person} onDone={onClose} />}
    </Modal>
  );
}

function GrantCreditForm({ person, onDone }: { person: Person; onDone: () => void }) {
  const form = useForm<GrantCreditFormValues>({ initialValues: { amount: '', note: '', expiresOn: '' }, validate: validateGrant });
  const grant = useCreateCreditGrant();
  const submit = (values: GrantCreditFormValues) =>
    grant.mutate(
      { personId: person.id, ...creditGrantInputSchema.parse(values) },
      {
        onSuccess: (granted) => {
          notifySuccess(`Granted ${formatMoney(granted.amount)} of promotional credit to ${granted.organizationName}.`);
          onDone();
        },
      },
    );

  return (
    // noValidate: the messages come from the contract, not from the browser.
    <form noValidate onSubmit={form.onSubmit(submit)}>
      <Stack gap="md">
        <Text size="sm">
          Promotional credit for the organisation {person.email} is working in now. It is spent before paid credit, and what is left of it expires.
        </Text>
        <DollarInput label="Amount" withAsterisk data-autofocus {...form.getInputProps('amount')} />
        <TextInput
          label="Note"
          description="Why, e.g. trial or support; the organisation sees it in its credit history"
          descriptionProps={grey}
          withAsterisk
          {...form.getInputProps('note')}
        />
        <TextInput
          type="date"
          label="Last day"
          description="Usable through the end of this day (UTC); what is left then expires"
          descriptionProps={grey}
          withAsterisk
          min={todayUtc()}
          {...form.getInputProps('expiresOn')}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={grant.isPending}>
            Grant credit
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
