import { developerErrorSchema } from '@meterway/contracts';

/** The OpenAPI security scheme the developer API's routes name: a secret key with the admin scope, as a Bearer token. */
const adminKeySecurityScheme = 'adminSecretKey';

export const developerSecuritySchemes = {
  [adminKeySecurityScheme]: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'sk_live_…',
    description:
      'A secret key with the admin scope (sk_live_…), created on the Meterway dashboard under Secret keys with the scope Admin; shown once. From servers only: a request with an Origin header is refused.',
  },
} as const;

/** What every developer-API route's schema carries beside its own: the tag, the security and the failures it may answer. */
export const developerRoute = {
  tags: ['Developer API'],
  security: [{ [adminKeySecurityScheme]: [] }],
};

/** The failures every developer-API route may answer, in OpenAI's error shape. */
export const developerFailures = {
  400: developerErrorSchema.describe('The query, path or body is invalid: `message` says what, `param` names the field.'),
  401: developerErrorSchema.describe('No key, an unknown, deleted or rolled-away key, or a publishable key.'),
  403: developerErrorSchema.describe('A secret key with the gateway scope, or a request with an Origin header (secret keys are for servers).'),
  429: developerErrorSchema.describe('More than 600 requests in a minute with this key: wait for Retry-After seconds.'),
};

export const notFound = { 404: developerErrorSchema.describe("No such key in the key's organisation.") };
