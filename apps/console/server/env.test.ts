// @vitest-environment node
import { EnvError } from '@meterway/service';
import { describe, expect, it } from 'vitest';
import { loadConsoleConfig, runtimeConfigFromEnv } from './env';

describe('runtimeConfigFromEnv', () => {
  it('maps the console origin to the API on the default ports', () => {
    expect(runtimeConfigFromEnv({})).toEqual({
      apiUrls: { 'http://localhost:3000': 'http://localhost:8080' },
      identityUrl: 'http://localhost:4000',
      docsUrl: 'http://localhost:8080/docs',
    });
  });

  it('follows custom ports', () => {
    expect(runtimeConfigFromEnv({ CONSOLE_PORT: '3100', API_PORT: '8180', IDENTITY_PORT: '4100' })).toEqual({
      apiUrls: { 'http://localhost:3100': 'http://localhost:8180' },
      identityUrl: 'http://localhost:4100',
      docsUrl: 'http://localhost:8180/docs',
    });
  });

  it('uses the public URLs and DOCS_URL when given', () => {
    expect(
      runtimeConfigFromEnv({
        CONSOLE_URL: 'https://console.example.com/',
        API_URL: 'https://api.example.com',
        IDENTITY_URL: 'https://auth.example.com',
        DOCS_URL: 'https://docs.example.com/guide',
      }),
    ).toEqual({
      apiUrls: { 'https://console.example.com': 'https://api.example.com' },
      identityUrl: 'https://auth.example.com',
      docsUrl: 'https://docs.example.com/guide',
    });
  });
});

describe('loadConsoleConfig', () => {
  it('listens on HOST and CONSOLE_PORT', () => {
    expect(loadConsoleConfig({ HOST: '0.0.0.0', CONSOLE_PORT: '3199' })).toMatchObject({ host: '0.0.0.0', port: 3199 });
  });

  it('names an invalid variable', () => {
    expect(() => loadConsoleConfig({ CONSOLE_PORT: 'abc' })).toThrow(EnvError);
    expect(() => loadConsoleConfig({ CONSOLE_PORT: 'abc' })).toThrow(/CONSOLE_PORT: must be a port number/);
  });
});
