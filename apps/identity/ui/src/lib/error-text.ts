import { errorReason, type IdentityFailure } from '@meterway/contracts';

/** The most specific human text a failure carries, else a sentence saying what happened. */
export function errorText(failure: IdentityFailure): string {
  if (failure.kind === 'network') return 'The identity service could not be reached. Check your connection and try again.';
  return errorReason(failure.body) ?? `The identity service answered ${failure.status}. Please try again.`;
}
