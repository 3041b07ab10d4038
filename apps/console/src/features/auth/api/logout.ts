import { mutationOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { logout } from '../../../lib/identity-client';

export const logoutMutationOptions = () => mutationOptions({ mutationKey: ['auth', 'logout'], mutationFn: logout });

/** Ends the session (spec §7); whatever was cached belonged to it, so it is dropped. */
export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({ ...logoutMutationOptions(), onSuccess: () => queryClient.removeQueries() });
}
