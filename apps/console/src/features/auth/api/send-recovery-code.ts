import { mutationOptions, useMutation } from '@tanstack/react-query';
import { sendRecoveryCode } from '../../../lib/identity-client';
import { unlessSignedIn } from './unless-signed-in';

/** Mails a recovery code; Success carries the flow the code is entered on (/recover-password). */
export const sendRecoveryCodeMutationOptions = () =>
  mutationOptions({ mutationKey: ['auth', 'send-recovery-code'], mutationFn: (email: string) => unlessSignedIn(sendRecoveryCode(email)) });

export const useSendRecoveryCode = () => useMutation(sendRecoveryCodeMutationOptions());
