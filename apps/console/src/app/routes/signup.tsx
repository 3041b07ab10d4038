import { AuthCard } from '@meterway/ui-kit';
import { useNavigate } from 'react-router';
import { paths } from '../../config/paths';
import { useRegister } from '../../features/auth/api/register';
import { SignupForm } from '../../features/auth/components/signup-form';
import { useContinueWithSession } from '../../features/auth/hooks/use-go-on-with-session';

export function Component() {
  const navigate = useNavigate();
  const { mutate, data, isPending } = useRegister();
  const continueWithSession = useContinueWithSession();

  return (
    <AuthCard title="Create your account" description="Sign up, verify your e-mail, and you are ready to go.">
      <title>Sign up · Meterway</title>
      <SignupForm
        loading={isPending}
        messages={data?.type === 'Failure' ? data.messages : []}
        onSubmit={({ email, password }) =>
          mutate(
            { email, password },
            {
              onSuccess: (result) => {
                if (result.type === 'Success') void navigate(paths.verifyEmail.getHref(result.flowId));
                // Signed in meanwhile (another tab, a second factor left half-way): go on with that session.
                else if (result.type === 'SessionAlreadyAvailable') continueWithSession();
              },
            },
          )
        }
      />
    </AuthCard>
  );
}
