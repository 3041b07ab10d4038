import { mutationOptions, useMutation } from '@tanstack/react-query';
import { paths } from '../../../config/paths';
import { type Credentials, login, type LoginResult, loginWithCode, sessionStatus } from '../../../lib/identity-client';
import { withReturnTo } from '../../../lib/second-factor';
import { type SessionAlreadyAvailable, unlessSignedIn } from './unless-signed-in';

/**
 * Logs in (spec §7) and says where the visitor goes next. Identity, like Kratos by default, lets
 * an unverified address log in, so a Success is checked against the new session: an unverified
 * address is the spec's EmailNotVerified (§4) and goes to verify-email, not via the dashboard.
 * A browser that has a session already (identity refuses a new login) goes on with that session:
 * to its second factor when one is due, else as after a login.
 */
export async function logIn(credentials: Credentials): Promise<LoginResult> {
  return goingOn(await unlessSignedIn(login(credentials)), credentials.email);
}

/** The mailed code after login() answered CodeSent (issue #53), then on as after a login. */
export async function logInWithCode(input: Parameters<typeof loginWithCode>[0]): Promise<LoginResult> {
  return goingOn(await loginWithCode(input), input.email);
}

/** Where a signed-in visitor goes next: verify-email, the second factor, or on. */
async function goingOn(result: LoginResult | SessionAlreadyAvailable, email: string): Promise<LoginResult> {
  if (result.type !== 'Success' && result.type !== 'SessionAlreadyAvailable') return result;
  // whoami failing right after a login is left to the dashboard's own guard.
  const status = await sessionStatus().catch(() => undefined);
  if (status?.state === 'email-not-verified') return { type: 'EmailNotVerified', email };
  if (status?.state === 'second-factor-required') {
    return { type: 'SecondFactorRequired', redirectTo: withReturnTo(status.redirectTo, paths.dashboard.getHref()) };
  }
  return { type: 'Success' };
}

export const loginMutationOptions = () => mutationOptions({ mutationKey: ['auth', 'login'], mutationFn: logIn });

export const useLogin = () => useMutation(loginMutationOptions());

export const useLoginWithCode = () => useMutation({ mutationKey: ['auth', 'login-code'], mutationFn: logInWithCode });
