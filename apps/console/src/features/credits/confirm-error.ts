import { problemSchema } from '@meterway/contracts';
import { ApiError } from '../../lib/api-client';

/** Spec §8: a checkout confirm error shows the provider's message, or this. */
export const confirmFallbackMessage = 'An error occurred';

function problemOf(error: unknown) {
  if (!(error instanceof ApiError)) return undefined;
  const problem = problemSchema.safeParse(error.body);
  return problem.success ? problem.data : undefined;
}

/** The provider's own words for a refused payment: the problem details' `detail`, else the fallback. */
export function confirmErrorMessage(error: unknown): string {
  const detail = problemOf(error)?.detail.trim();
  return detail ? detail : confirmFallbackMessage;
}

/** The fields the person has to change before trying again (a declined card's number, a past expiry). */
export function confirmErrorFields(error: unknown): string[] {
  return problemOf(error)?.errors?.map(({ field }) => field) ?? [];
}
