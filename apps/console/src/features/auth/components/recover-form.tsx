import { Button, Stack } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { type RecoverValues, recoverSchema } from '../schemas';
import { EmailInput } from './email-input';

type RecoverFormProps = {
  /** The main action: mail a link that signs the account in. Valid values only. */
  onSendLink: (values: RecoverValues) => void;
  /** The alternative: mail a code to type in here, for when links cannot be opened in this browser. */
  onSendCode: (values: RecoverValues) => void;
  sendingLink?: boolean;
  sendingCode?: boolean;
};

export function RecoverForm({ onSendLink, onSendCode, sendingLink = false, sendingCode = false }: RecoverFormProps) {
  const form = useForm<RecoverValues>({
    mode: 'uncontrolled',
    initialValues: { email: '' },
    validate: schemaResolver(recoverSchema, { sync: true }),
  });
  const busy = sendingLink || sendingCode;

  const sendCode = () => {
    if (!form.validate().hasErrors) onSendCode(form.getValues());
  };

  return (
    <form noValidate onSubmit={form.onSubmit((values) => onSendLink(values))}>
      <Stack gap="md">
        <EmailInput autoComplete="email" key={form.key('email')} {...form.getInputProps('email')} />
        <Button type="submit" fullWidth loading={sendingLink} disabled={busy && !sendingLink}>
          Send recovery link
        </Button>
        <Button type="button" variant="subtle" fullWidth loading={sendingCode} disabled={busy && !sendingCode} onClick={sendCode}>
          Use a code instead
        </Button>
      </Stack>
    </form>
  );
}
