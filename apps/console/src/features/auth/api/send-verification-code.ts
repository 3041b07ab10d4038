import { mutationOptions, useMutation } from '@tanstack/react-query';
import { sendVerificationCode } from '../../../lib/identity-client';

/** Mails a new verification code to the address; answers the flow the code belongs to. */
export const sendVerificationCodeMutationOptions = () => mutationOptions({ mutationKey: ['auth', 'send-verification-code'], mutationFn: sendVerificationCode });

export const useSendVerificationCode = () => useMutation(sendVerificationCodeMutationOptions());
