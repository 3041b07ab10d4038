import { browserLocation } from './browser-location';
import { errorId, redirectBrowserTo } from './identity-flow';

// A password was given but the second factor is still due (an aal1 session that needs aal2). As
// Kratos clients do, the browser goes to identity's aal2 login (identity-protocol.md §2, §10),
// which creates the flow and shows its second-factor page. Logging in with the password again is
// no way out: identity answers every new aal1 login flow with session_already_available.

/** whoami's 403 session_aal2_required (also passed on by /bff/me) → where the browser finishes it. */
export function secondFactorRedirect(body: unknown): string | undefined {
  return errorId(body) === 'session_aal2_required' ? redirectBrowserTo(body) : undefined;
}

/**
 * `redirectTo` with `return_to` = the console page `returnHref` (identity allows the console's
 * origin), unless identity already chose one: after the code the person lands where they wanted.
 */
export function withReturnTo(redirectTo: string, returnHref: string): string {
  const url = new URL(redirectTo);
  if (!url.searchParams.has('return_to')) url.searchParams.set('return_to', new URL(returnHref, window.location.origin).href);
  return url.toString();
}

/** Sends the browser to the second-factor step, coming back to `returnHref` once it is done. */
export function goToSecondFactor(redirectTo: string, returnHref: string): void {
  browserLocation.assign(withReturnTo(redirectTo, returnHref));
}
