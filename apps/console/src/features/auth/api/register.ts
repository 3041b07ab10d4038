import { mutationOptions, useMutation } from '@tanstack/react-query';
import { register } from '../../../lib/identity-client';

/** Registration (spec §7): Success carries the verification flow identity already mailed a code for. */
export const registerMutationOptions = () => mutationOptions({ mutationKey: ['auth', 'register'], mutationFn: register });

export const useRegister = () => useMutation(registerMutationOptions());
