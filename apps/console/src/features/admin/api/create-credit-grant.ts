import { type CreditGrantInput, creditGrantSchema, problemSchema } from '@meterway/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, apiRequest } from '../../../lib/api-client';
import { personsQueryKey } from './get-persons';

// POST /admin/persons/{personId}/credit-grants (issue #22): promotional credit for the person's
// current organisation, system admins only.

export const createCreditGrant = ({ personId, ...input }: CreditGrantInput & { personId: string }) =>
  apiRequest(`/admin/persons/${encodeURIComponent(personId)}/credit-grants`, { method: 'POST', body: input, schema: creditGrantSchema });

/** The api's own words for a refusal (an expiry already past, an unknown person), else a generic line. */
const refusalOf = (error: unknown) => {
  const problem = error instanceof ApiError ? problemSchema.safeParse(error.body) : undefined;
  return problem?.success && problem.data.detail ? problem.data.detail : 'Failed to grant credit';
};

export const useCreateCreditGrant = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createCreditGrant,
    meta: { errorMessage: refusalOf },
    // A grant pays what an organisation owes first, which the users list shows.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: personsQueryKey }),
  });
};
