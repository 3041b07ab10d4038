import { Configuration, FrontendApi } from '@ory/client-fetch';

/**
 * The official SDK, pointed at the page's own origin: identity serves these pages, so its cookies
 * and CSRF token are first-party. Accept: application/json makes the self-service endpoints answer
 * with JSON instead of 303 redirects (identity-protocol.md §0).
 */
export const ory = new FrontendApi(new Configuration({ basePath: window.location.origin, credentials: 'include', headers: { Accept: 'application/json' } }));
