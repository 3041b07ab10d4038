import { mutationOptions, useMutation } from '@tanstack/react-query';
import { recoverByLink } from '../../../lib/identity-client';
import { unlessSignedIn } from './unless-signed-in';

/** Mails a recovery link (spec §2 Recover); opening it signs in and opens identity's settings page. */
export const recoverByLinkMutationOptions = () =>
  mutationOptions({ mutationKey: ['auth', 'recover-by-link'], mutationFn: (email: string) => unlessSignedIn(recoverByLink(email)) });

export const useRecoverByLink = () => useMutation(recoverByLinkMutationOptions());
