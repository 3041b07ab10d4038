import { problemSchema } from '@meterway/contracts';
import { ApiError } from '../../lib/api-client';

/** Spec §8: a checkout confirm error shows the provider's message, or this. */
export const confirmFallbackMessage = 'An error occurred';

/** The provider's own words for a refused payment: the problem details' `detail`, else the fallback. */
export function confirmErrorMessage(error: unknown): string {
  if (!(error instanceof ApiError)) return confirmFallbackMessage;
  const problem = problemSchema.safeParse(error.body);
  return problem.success && problem.data.detail.trim() ? problem.data.detail : confirmFallbackMessage;
}
