import { AuthCard } from '@meterway/ui-kit';
import { Text } from '@mantine/core';
import { useNavigate } from 'react-router';
import { paths } from '../../config/paths';
import { useLogin, useLoginWithCode } from '../../features/auth/api/login';
import { CodeForm } from '../../features/auth/components/code-form';
import { FailureAlert } from '../../features/auth/components/failure-alert';
import { LoginForm } from '../../features/auth/components/login-form';
import { browserLocation } from '../../lib/browser-location';
import type { LoginResult } from '../../lib/identity-client';

export function Component() {
  const navigate = useNavigate();
  const login = useLogin();
  const withCode = useLoginWithCode();

  const goOn = (result: LoginResult) => {
    if (result.type === 'Success') void navigate(paths.dashboard.getHref());
    else if (result.type === 'EmailNotVerified') void navigate(paths.verifyEmail.getHref(result.flowId));
    else if (result.type === 'SecondFactorRequired') browserLocation.assign(result.redirectTo);
  };

  // Many failed sign-ins from other browsers: identity mailed the address a code (issue #53).
  const codeSent = login.data?.type === 'CodeSent' ? login.data : undefined;
  if (codeSent) {
    return (
      <AuthCard title="Check your e-mail" description={`We sent a sign-in code to ${codeSent.email}.`}>
        <title>Sign-in code · Meterway</title>
        <Text size="sm" mb="md">
          Many sign-ins to this account failed from other browsers, so signing in from a new one takes the code we e-mailed to it. It works for one hour; if you
          asked more than once, use the newest.
        </Text>
        <CodeForm
          label="Sign-in code"
          submitLabel="Log in"
          loading={withCode.isPending}
          alert={withCode.data?.type === 'Failure' && <FailureAlert messages={withCode.data.messages} />}
          onSubmit={({ code }) => withCode.mutate({ ...codeSent, code }, { onSuccess: goOn })}
        />
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Log in to your account" description="Welcome back. Enter your details to continue.">
      <title>Log in · Meterway</title>
      <LoginForm
        loading={login.isPending}
        messages={login.data?.type === 'Failure' ? login.data.messages : []}
        onSubmit={(values) => login.mutate(values, { onSuccess: goOn })}
      />
    </AuthCard>
  );
}
