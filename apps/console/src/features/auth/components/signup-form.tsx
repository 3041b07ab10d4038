import { Anchor, Button, Checkbox, PasswordInput, Stack } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { paths } from '../../../config/paths';
import { type SignupValues, signupSchema } from '../schemas';
import { AuthSwitchLink } from './auth-switch-link';
import { EmailInput } from './email-input';
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
        <EmailInput autoComplete="email" key={form.key('email')} {...form.getInputProps('email')} />
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
        <AuthSwitchLink prompt="Already have an account?" to={paths.login.getHref()}>
          Log in
        </AuthSwitchLink>
      </Stack>
    </form>
  );
}
