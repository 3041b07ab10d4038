import registrationSuccess from '@meterway/contracts/fixtures/identity/registration-success.json';
import whoami from '@meterway/contracts/fixtures/identity/whoami.json';
import whoamiAal2Required from '@meterway/contracts/fixtures/identity/whoami-aal2-required.json';
import whoamiNoSession from '@meterway/contracts/fixtures/identity/whoami-no-session.json';
import { HttpResponse, http } from 'msw';
import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { routes } from '../app/router';
import { paths } from '../config/paths';
import { answer, type IdentityFixture } from './identity-handlers';
import { renderRoutes } from './render';
import { testRuntimeConfig } from './runtime-config';

/** The sessions the auth guards tell apart, as identity's whoami answers them (recorded fixtures). */
export const sessions = {
  /** Signed in, address verified. */
  verified: whoami as IdentityFixture,
  /** Signed in right after registration: the recorded session, address not verified yet. */
  unverified: { status: 200, body: registrationSuccess.body.session } as IdentityFixture,
  none: whoamiNoSession as IdentityFixture,
  /** A password was given but the second factor is pending (403 session_aal2_required with its redirect_browser_to). */
  secondFactorPending: whoamiAal2Required as IdentityFixture,
};

/** Identity refusing to start a flow because the browser has a session (worded as identity's errors.ts words it). */
export const sessionAlreadyAvailable = (flow: 'login' | 'recovery'): IdentityFixture => ({
  status: 400,
  body: {
    error: {
      id: 'session_already_available',
      code: 400,
      status: 'Bad Request',
      reason:
        flow === 'login'
          ? 'A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?'
          : 'A valid session was detected and thus recovery is not possible.',
      message: 'you are already logged in',
    },
  },
});

/** Where the console sends a visitor whose second factor is due: whoami's redirect, back to the console page `href`. */
export const secondFactorStep = (href: string): string =>
  `http://localhost:4000/self-service/login/browser?aal=aal2&return_to=${encodeURIComponent(`${window.location.origin}${href}`)}`;

/** The e-mail address of the recorded sessions. */
export const sessionEmail = registrationSuccess.body.session.identity.traits.email;

/** identity unreachable for `path` (a network error, no answer at all). */
export const identityUnreachable = (method: 'get' | 'post', path: string) =>
  http[method](`${testRuntimeConfig.identityUrl}${path}`, () => HttpResponse.error());

/** identity failing `path` with a 500 error envelope. */
export const identityFails = (method: 'get' | 'post', path: string) =>
  http[method](`${testRuntimeConfig.identityUrl}${path}`, () =>
    HttpResponse.json({ error: { code: 500, status: 'Internal Server Error', message: 'boom' } }, { status: 500 }),
  );

/** Records what the console sends to `POST path` (query and JSON body), answering each with `fixture`. */
export function recordingPost(path: string, fixture: IdentityFixture) {
  const sent: { query: URLSearchParams; body: any }[] = [];
  const handler = http.post(`${testRuntimeConfig.identityUrl}${path}`, async ({ request }) => {
    sent.push({ query: new URL(request.url).searchParams, body: await request.json() });
    return answer(fixture);
  });
  return { handler, sent };
}

const isSignedInArea = (route: RouteObject) => route.children?.some((child) => child.path === paths.dashboard.path) ?? false;

/**
 * The real route table with the signed-in area (its guard reads /bff/me, its screens their own
 * endpoints) reduced to a 'Dashboard' heading: the auth tests check where a visitor is sent, and
 * stay independent of what the dashboard loads.
 */
export function renderAuthRoute(path: string) {
  const table = routes.map((root): RouteObject => {
    if (root.index) return root;
    const children = root.children?.map((route) =>
      isSignedInArea(route) ? { path: paths.dashboard.path, element: createElement('h1', null, 'Dashboard') } : route,
    );
    return { ...root, children };
  });
  return renderRoutes(table, path);
}
