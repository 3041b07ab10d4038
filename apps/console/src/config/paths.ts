/** Every route path, in one place; links use getHref() so a path is never retyped. */
export const paths = {
  login: { path: '/login', getHref: () => '/login' },
  signup: { path: '/signup', getHref: () => '/signup' },
  recover: { path: '/recover', getHref: () => '/recover' },
} as const;
