import { mutationOptions, useMutation } from '@tanstack/react-query';
import { recoverByCode } from '../../../lib/identity-client';

type RecoverByCodeInput = { flowId: string; code: string };

/** Completes a recovery with the e-mailed code; Success may carry identity's settings page. */
export const recoverByCodeMutationOptions = () =>
  mutationOptions({
    mutationKey: ['auth', 'recover-by-code'],
    mutationFn: ({ flowId, code }: RecoverByCodeInput) => recoverByCode(flowId, code),
  });

export const useRecoverByCode = () => useMutation(recoverByCodeMutationOptions());
