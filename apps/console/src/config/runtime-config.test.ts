import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { server } from '../testing/msw-server';
import { testRuntimeConfig } from '../testing/runtime-config';
import { apiBaseUrl, loadRuntimeConfig, runtimeConfig, runtimeConfigElementId } from './runtime-config';

describe('apiBaseUrl', () => {
  const config = {
    ...testRuntimeConfig,
    apiUrls: { 'https://console.example.com': 'https://api.example.com', 'http://localhost:3000': 'http://localhost:8080' },
  };

  it('returns the API URL mapped to the page origin', () => {
    expect(apiBaseUrl('https://console.example.com', config)).toBe('https://api.example.com');
    expect(apiBaseUrl('http://localhost:3000', config)).toBe('http://localhost:8080');
  });

  it("throws 'API URL not found' for any other origin", () => {
    expect(() => apiBaseUrl('https://evil.example.com', config)).toThrow(new Error('API URL not found'));
    expect(() => apiBaseUrl('constructor', config)).toThrow('API URL not found');
  });

  it("defaults to the page's origin and the loaded config", () => {
    expect(apiBaseUrl()).toBe('http://localhost:8080');
  });
});

describe('loadRuntimeConfig', () => {
  it('reads and validates /config.json', async () => {
    const served = { ...testRuntimeConfig, docsUrl: 'https://docs.example.com' };
    server.use(http.get('http://localhost:3000/config.json', () => HttpResponse.json(served)));
    await expect(loadRuntimeConfig()).resolves.toEqual(served);
    expect(runtimeConfig()).toEqual(served);
  });

  it('refuses a config of the wrong shape', async () => {
    server.use(http.get('http://localhost:3000/config.json', () => HttpResponse.json({ apiUrls: {} })));
    await expect(loadRuntimeConfig()).rejects.toThrow(/config\.json is invalid.*identityUrl/s);
  });

  it('refuses a failed response', async () => {
    server.use(http.get('http://localhost:3000/config.json', () => new HttpResponse(null, { status: 404, statusText: 'Not Found' })));
    await expect(loadRuntimeConfig()).rejects.toThrow('/config.json answered 404 Not Found');
  });
});

describe('loadRuntimeConfig on a page the console server wrote the config into', () => {
  const writeIntoPage = (text: string) => {
    const element = document.createElement('script');
    element.type = 'application/json';
    element.id = runtimeConfigElementId;
    element.textContent = text;
    document.head.append(element);
  };
  afterEach(() => document.getElementById(runtimeConfigElementId)?.remove());

  it('reads it from the page, without asking for /config.json', async () => {
    // No handler for /config.json: a request for it would fail the test.
    const written = { ...testRuntimeConfig, docsUrl: 'https://docs.example.com/in-page' };
    writeIntoPage(JSON.stringify(written));
    await expect(loadRuntimeConfig()).resolves.toEqual(written);
    expect(runtimeConfig()).toEqual(written);
  });

  it('refuses a config of the wrong shape', async () => {
    writeIntoPage(JSON.stringify({ ...testRuntimeConfig, identityUrl: 'not a url' }));
    await expect(loadRuntimeConfig()).rejects.toThrow(/The config in the page is invalid.*identityUrl/s);
  });
});
