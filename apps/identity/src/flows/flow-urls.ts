import type { IdentityContext } from '../context.js';
import { errors } from './errors.js';

/** Control characters: Go's url.Parse (so Kratos) refuses them, and CR/LF would break the Location header. */
const controlCharacter = /\p{Cc}/u;

/**
 * `return_to` must point at an allow-listed origin (the console's or identity's own). It ends up in
 * a Location header, which carries ASCII only: anything else is sent percent-encoded, as a browser
 * would send it.
 */
export function returnToFrom(ctx: IdentityContext, value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (typeof value !== 'string' || controlCharacter.test(value)) throw errors.returnToForbidden(String(value));
  let origin: string;
  try {
    origin = new URL(value).origin;
  } catch {
    throw errors.returnToForbidden(value);
  }
  if (!ctx.config.allowedReturnOrigins.includes(origin)) throw errors.returnToForbidden(value);
  return value.replace(/[^\x20-\x7e]/gu, (char) => encodeURIComponent(char));
}

export const withFlowParam = (url: string, flowId: string) => `${url}${url.includes('?') ? '&' : '?'}flow=${flowId}`;

/** The second-factor login, coming back to `returnTo` once the code is given. */
export const secondFactorLoginUrl = (ctx: IdentityContext, returnTo: string | null | undefined) =>
  `${ctx.config.identityUrl}/self-service/login/browser?aal=aal2${returnTo ? `&return_to=${encodeURIComponent(returnTo)}` : ''}`;
