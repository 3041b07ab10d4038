import { Anchor, Button, Checkbox, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { Link } from 'react-router';
import { paths } from '../../../config/paths';
import { type SignupValues, signupSchema } from '../schemas';
import { FailureAlert } from './failure-alert';

type SignupFormProps = {
  /** Called with valid values only. */
  onSubmit?: (values: SignupValues) => void;
  /** Messages of a failed attempt, shown in the Failure alert. */
  messages?: readonly string[];
  loading?: boolean;
};

// The documents open in a new tab, so a half-filled form is not lost.
const newTab = { target: '_blank', rel: 'noopener noreferrer' } as const;

export function SignupForm({ onSubmit, messages = [], loading = false }: SignupFormProps) {
  const form = useForm<SignupValues>({
    mode: 'uncontrolled',
    initialValues: { email: '', password: '', acceptTerms: false },
    validate: schemaResolver(signupSchema, { sync: true }),
  });

  return (
    <form noValidate onSubmit={form.onSubmit((values) => onSubmit?.(values))}>
      <Stack gap="md">
        {messages.length > 0 && <FailureAlert messages={messages} />}
        <TextInput
          label="Email"
          type="email"
          autoComplete="email"
          placeholder="you@company.com"
          key={form.key('email')}
          {...form.getInputProps('email')}
        />
        <PasswordInput
          label="Password"
          autoComplete="new-password"
          placeholder="Choose a password"
          key={form.key('password')}
          {...form.getInputProps('password')}
        />
        <Checkbox
          label={
            <>
              I agree to the{' '}
              <Anchor href={paths.termsOfService.getHref()} {...newTab} inherit>
                terms of service
              </Anchor>{' '}
              and{' '}
              <Anchor href={`${paths.termsOfService.getHref()}#privacy`} {...newTab} inherit>
                privacy policy
              </Anchor>
            </>
          }
          key={form.key('acceptTerms')}
          {...form.getInputProps('acceptTerms', { type: 'checkbox' })}
        />
        <Button type="submit" fullWidth loading={loading}>
          Sign up
        </Button>
        <Text size="sm" c="dimmed" ta="center">
          Already have an account?{' '}
          <Anchor component={Link} to={paths.login.getHref()} fw={500}>
            Log in
          </Anchor>
        </Text>
      </Stack>
    </form>
  );
}
