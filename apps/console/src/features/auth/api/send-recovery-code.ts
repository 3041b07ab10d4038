import { mutationOptions, useMutation } from '@tanstack/react-query';
import { sendRecoveryCode } from '../../../lib/identity-client';

/** Mails a recovery code; Success carries the flow the code is entered on (/recover-password). */
export const sendRecoveryCodeMutationOptions = () =>
  mutationOptions({ mutationKey: ['auth', 'send-recovery-code'], mutationFn: sendRecoveryCode });

export const useSendRecoveryCode = () => useMutation(sendRecoveryCodeMutationOptions());
