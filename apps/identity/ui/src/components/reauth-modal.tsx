import { Alert, Button, Group, Modal, PasswordInput, Stack, Text } from '@mantine/core';
import { type FormEvent, useState } from 'react';

type ReauthModalProps = {
  opened: boolean;
  email: string;
  onCancel: () => void;
  /** Resolves with the reasons the password was refused, or nothing once confirmed. */
  onConfirm: (password: string) => Promise<string[] | undefined>;
};

/** "Confirm it's you": the password prompt for a change the session is too old to make (§9.4). */
export function ReauthModal({ opened, email, onCancel, onConfirm }: ReauthModalProps) {
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<string[]>([]);
  const [submitting, setSubmitting] = useState(false);

  const close = () => {
    setPassword('');
    setErrors([]);
    onCancel();
  };

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitting(true);
    try {
      const refused = await onConfirm(password);
      setErrors(refused ?? []);
      setPassword('');
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Modal opened={opened} onClose={close} title="Confirm it's you" centered>
      <form noValidate onSubmit={handleSubmit}>
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            For your security, enter the password of <strong>{email}</strong> to save this change.
          </Text>
          {errors.length > 0 && (
            <Alert color="red" variant="light">
              {errors.join(' ')}
            </Alert>
          )}
          <PasswordInput
            label="Password"
            name="password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            data-autofocus
          />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close} disabled={submitting}>
              Cancel
            </Button>
            <Button type="submit" loading={submitting}>
              Confirm
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
