import type { RuntimeConfig } from '../config/runtime-config';

/** The config the tests run with; jsdom's page origin is http://localhost:3000. */
export const testRuntimeConfig: RuntimeConfig = {
  apiUrls: { 'http://localhost:3000': 'http://localhost:8080' },
  identityUrl: 'http://localhost:4000',
  docsUrl: 'http://localhost:8080/docs',
};
