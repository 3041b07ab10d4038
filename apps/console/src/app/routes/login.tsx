import { AuthCard } from '@meterway/ui-kit';
import { LoginForm } from '../../features/auth/components/login-form';

// The form validates only; submitting to identity (and the redirects for a visitor who is already
// logged in) arrive with the identity client.
export function Component() {
  return (
    <AuthCard title="Log in to your account" description="Welcome back. Enter your details to continue.">
      <title>Log in · Meterway</title>
      <LoginForm />
    </AuthCard>
  );
}
