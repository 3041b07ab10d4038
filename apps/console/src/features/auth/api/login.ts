import { mutationOptions, useMutation } from '@tanstack/react-query';
import { type Credentials, login, type LoginResult, sessionState } from '../../../lib/identity-client';

/**
 * Logs in (spec §7) and says where the visitor goes next. Identity, like Kratos by default, lets
 * an unverified address log in, so a Success is checked against the new session: an unverified
 * address is the spec's EmailNotVerified (§4) and goes to verify-email, not via the dashboard.
 */
export async function logIn(credentials: Credentials): Promise<LoginResult> {
  const result = await login(credentials);
  if (result.type !== 'Success') return result;
  // whoami failing right after a login is left to the dashboard's own guard.
  const state = await sessionState().catch(() => undefined);
  return state === 'email-not-verified' ? { type: 'EmailNotVerified', email: credentials.email } : result;
}

export const loginMutationOptions = () => mutationOptions({ mutationKey: ['auth', 'login'], mutationFn: logIn });

export const useLogin = () => useMutation(loginMutationOptions());
