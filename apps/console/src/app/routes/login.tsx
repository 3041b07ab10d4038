import { AuthCard } from '@meterway/ui-kit';
import { useNavigate } from 'react-router';
import { paths } from '../../config/paths';
import { useLogin } from '../../features/auth/api/login';
import { LoginForm } from '../../features/auth/components/login-form';
import { browserLocation } from '../../lib/browser-location';
import type { LoginResult } from '../../lib/identity-client';

export function Component() {
  const navigate = useNavigate();
  const { mutate, data, isPending } = useLogin();

  const goOn = (result: LoginResult) => {
    if (result.type === 'Success') void navigate(paths.dashboard.getHref());
    else if (result.type === 'EmailNotVerified') void navigate(paths.verifyEmail.getHref(result.flowId));
    else if (result.type === 'SecondFactorRequired') browserLocation.assign(result.redirectTo);
  };

  return (
    <AuthCard title="Log in to your account" description="Welcome back. Enter your details to continue.">
      <title>Log in · Meterway</title>
      <LoginForm loading={isPending} messages={data?.type === 'Failure' ? data.messages : []} onSubmit={(values) => mutate(values, { onSuccess: goOn })} />
    </AuthCard>
  );
}
