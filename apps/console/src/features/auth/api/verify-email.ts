import { mutationOptions, useMutation } from '@tanstack/react-query';
import { verify } from '../../../lib/identity-client';

type VerifyEmailInput = { flowId: string; code: string };

/** Submits the 6-character verification code (spec §2 Verify-email). */
export const verifyEmailMutationOptions = () =>
  mutationOptions({
    mutationKey: ['auth', 'verify-email'],
    mutationFn: ({ flowId, code }: VerifyEmailInput) => verify(flowId, code),
  });

export const useVerifyEmail = () => useMutation(verifyEmailMutationOptions());
