import { mutationOptions, useMutation } from '@tanstack/react-query';
import { type Credentials, register } from '../../../lib/identity-client';
import { unlessSignedIn } from './unless-signed-in';

/**
 * Registration (spec §7): Success carries the verification flow identity already mailed a code
 * for; SessionAlreadyAvailable when the browser is signed in already.
 */
export const registerMutationOptions = () =>
  mutationOptions({ mutationKey: ['auth', 'register'], mutationFn: (credentials: Credentials) => unlessSignedIn(register(credentials)) });

export const useRegister = () => useMutation(registerMutationOptions());
