import { Anchor, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { Link } from 'react-router';
import { paths } from '../../../config/paths';
import { type LoginValues, loginSchema } from '../schemas';
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
        <TextInput
          label="Email"
          type="email"
          autoComplete="username"
          placeholder="you@company.com"
          key={form.key('email')}
          {...form.getInputProps('email')}
        />
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
        <Text size="sm" c="dimmed" ta="center">
          Don&apos;t have an account?{' '}
          <Anchor component={Link} to={paths.signup.getHref()} fw={500}>
            Sign up
          </Anchor>
        </Text>
      </Stack>
    </form>
  );
}
