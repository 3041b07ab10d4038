import { mutationOptions, useMutation } from '@tanstack/react-query';
import { recoverByLink } from '../../../lib/identity-client';

/** Mails a recovery link (spec §2 Recover); opening it signs in and opens identity's settings page. */
export const recoverByLinkMutationOptions = () =>
  mutationOptions({ mutationKey: ['auth', 'recover-by-link'], mutationFn: recoverByLink });

export const useRecoverByLink = () => useMutation(recoverByLinkMutationOptions());
