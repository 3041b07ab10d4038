import { Anchor, Button, Group, PasswordInput, Stack } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { Link } from 'react-router';
import { paths } from '../../../config/paths';
import { type LoginValues, loginSchema } from '../schemas';
import { AuthSwitchLink } from './auth-switch-link';
import { EmailInput } from './email-input';
import { FailureAlert } from './failure-alert';

type LoginFormProps = {
  /** Called with valid values only. */
  onSubmit?: (values: LoginValues) => void;
  /** Messages of a failed attempt, shown in the Failure alert. */
  messages?: readonly string[];
  loading?: boolean;
};

export function LoginForm({ onSubmit, messages = [], loading = false }: LoginFormProps) {
  const form = useForm<LoginValues>({
    mode: 'uncontrolled',
    initialValues: { email: '', password: '' },
    validate: schemaResolver(loginSchema, { sync: true }),
  });

  return (
    // noValidate: the messages come from the shared schema, not from the browser.
    <form noValidate onSubmit={form.onSubmit((values) => onSubmit?.(values))}>
      <Stack gap="md">
        {messages.length > 0 && <FailureAlert messages={messages} />}
        <EmailInput autoComplete="username" key={form.key('email')} {...form.getInputProps('email')} />
        <Stack gap={6}>
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            placeholder="Your password"
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          <Group justify="flex-end">
            <Anchor component={Link} to={paths.recover.getHref()} size="sm">
              Forgot password?
            </Anchor>
          </Group>
        </Stack>
        <Button type="submit" fullWidth loading={loading}>
          Login
        </Button>
        <AuthSwitchLink prompt="Don't have an account?" to={paths.signup.getHref()}>
          Sign up
        </AuthSwitchLink>
      </Stack>
    </form>
  );
}
