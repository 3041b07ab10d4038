import { meSchema } from '@meterway/contracts';
import { delay, HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { setRuntimeConfig } from '../config/runtime-config';
import { buildMe } from '../testing/me-handlers';
import { server } from '../testing/msw-server';
import { testRuntimeConfig } from '../testing/runtime-config';
import { ApiError, apiRequest, isEmailNotVerified, RequestAbortedError } from './api-client';
import { showOrganizationInTab, tabOrganization } from './tab-organization';

const api = 'http://localhost:8080';

const me = buildMe();

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail');
}

describe('apiRequest', () => {
  it('sends JSON with credentials to the API of the page origin and validates the answer', async () => {
    let seen: { url: string; credentials: RequestCredentials; contentType: string | null; accept: string | null; body: unknown } | undefined;
    server.use(
      http.post(`${api}/bff/publishable-keys`, async ({ request }) => {
        seen = {
          url: request.url,
          credentials: request.credentials,
          contentType: request.headers.get('content-type'),
          accept: request.headers.get('accept'),
          body: await request.json(),
        };
        return HttpResponse.json({ id: 'pk_1' }, { status: 201 });
      }),
    );

    const created = await apiRequest('/bff/publishable-keys', {
      method: 'POST',
      body: { name: 'Web' },
      query: { dryRun: false, skipped: undefined },
      schema: z.object({ id: z.string() }),
    });

    expect(created).toEqual({ id: 'pk_1' });
    expect(seen).toEqual({
      url: `${api}/bff/publishable-keys?dryRun=false`,
      credentials: 'include',
      contentType: 'application/json',
      accept: 'application/json, application/problem+json',
      body: { name: 'Web' },
    });
  });

  it('validates with a contracts schema and returns the parsed value', async () => {
    server.use(http.get(`${api}/bff/me`, () => HttpResponse.json(me)));
    await expect(apiRequest('/bff/me', { schema: meSchema })).resolves.toEqual(me);
  });

  it('rejects a successful body of the wrong shape', async () => {
    server.use(http.get(`${api}/bff/me`, () => HttpResponse.json({ email: 42 })));
    const error = await rejection(apiRequest('/bff/me', { schema: meSchema }));
    expect(error).not.toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(Error);
  });

  it('resolves a 204 to undefined', async () => {
    server.use(http.delete(`${api}/bff/publishable-keys/pk_1`, () => new HttpResponse(null, { status: 204 })));
    await expect(apiRequest('/bff/publishable-keys/pk_1', { method: 'DELETE' })).resolves.toBeUndefined();
  });

  it.each([
    [400, 'Bad Request'],
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [404, 'Not Found'],
    [500, 'Internal Server Error'],
    [502, 'Bad Gateway'],
    [503, 'Service Unavailable'],
  ])('fails a %i with the message %s', async (status, message) => {
    server.use(http.get(`${api}/bff/me`, () => HttpResponse.json({ detail: 'x' }, { status })));

    const error = await rejection(apiRequest('/bff/me'));

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ message, status, body: { detail: 'x' } });
  });

  it("fails any other status with 'Generic Error', keeping status, status text and body", async () => {
    server.use(http.get(`${api}/bff/me`, () => new HttpResponse('slow down', { status: 429, statusText: 'Too Many Requests' })));

    const error = await rejection(apiRequest('/bff/me'));

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ message: 'Generic Error', status: 429, statusText: 'Too Many Requests', body: 'slow down' });
  });

  it('keeps an application/problem+json body on the error', async () => {
    const problem = { type: 'about:blank', title: 'Conflict', status: 409, detail: 'The key name is taken', code: 'KeyNameTaken' };
    server.use(
      http.post(`${api}/bff/publishable-keys`, () =>
        HttpResponse.json(problem, { status: 409, statusText: 'Conflict', headers: { 'content-type': 'application/problem+json' } }),
      ),
    );

    const error = await rejection(apiRequest('/bff/publishable-keys', { method: 'POST', body: {} }));

    expect(error).toMatchObject({ message: 'Generic Error', status: 409, statusText: 'Conflict', body: problem });
  });

  it('reads a problem+json success body as JSON too', async () => {
    server.use(http.get(`${api}/bff/odd`, () => HttpResponse.json({ ok: true }, { headers: { 'content-type': 'application/problem+json' } })));
    await expect(apiRequest('/bff/odd')).resolves.toEqual({ ok: true });
  });

  it("fails a cancelled request with 'Request aborted'", async () => {
    server.use(
      http.get(`${api}/bff/me`, async () => {
        await delay('infinite');
        return HttpResponse.json(me);
      }),
    );
    const controller = new AbortController();

    const pending = rejection(apiRequest('/bff/me', { signal: controller.signal }));
    controller.abort();
    const error = await pending;

    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error).toHaveProperty('message', 'Request aborted');
  });

  it("fails with 'API URL not found' when the page origin has no API", async () => {
    setRuntimeConfig({ ...testRuntimeConfig, apiUrls: { 'https://console.example.com': 'https://api.example.com' } });
    await expect(apiRequest('/bff/me')).rejects.toThrow(new Error('API URL not found'));
  });
});

describe('isEmailNotVerified', () => {
  it('returns the e-mail of the 401 EmailNotVerified answer', async () => {
    server.use(http.get(`${api}/bff/me`, () => HttpResponse.json({ code: 'EmailNotVerified', email: 'ada@example.com' }, { status: 401 })));
    const error = await rejection(apiRequest('/bff/me', { schema: meSchema }));
    expect(isEmailNotVerified(error)).toBe('ada@example.com');
  });

  it('returns undefined for any other failure', () => {
    expect(isEmailNotVerified(new ApiError(401, 'Unauthorized', { code: 'Unauthenticated' }))).toBeUndefined();
    expect(isEmailNotVerified(new ApiError(403, 'Forbidden', { code: 'EmailNotVerified', email: 'ada@example.com' }))).toBeUndefined();
    expect(isEmailNotVerified(new Error('Unauthorized'))).toBeUndefined();
    expect(isEmailNotVerified(undefined)).toBeUndefined();
  });
});

// Issue #53: each tab acts in the organisation it shows.
describe('apiRequest: the tab’s organisation', () => {
  it('names the organisation this tab shows on every request, and none before the tab knows one', async () => {
    const seen: (string | null)[] = [];
    server.use(
      http.get(`${api}/bff/publishable-keys`, ({ request }) => {
        seen.push(request.headers.get('meterway-organization'));
        return HttpResponse.json({ publishableKeys: [] });
      }),
    );
    await apiRequest('/bff/publishable-keys');
    showOrganizationInTab('org_team');
    await apiRequest('/bff/publishable-keys');
    expect(seen).toEqual([null, 'org_team']);
  });

  it('stops naming an organisation the api says the person left, so the tab falls back to their current one', async () => {
    showOrganizationInTab('org_left');
    server.use(
      http.post(`${api}/bff/publishable-keys`, () =>
        HttpResponse.json(
          { type: 'about:blank', title: 'Conflict', status: 409, code: 'OrganizationLeft', organizationId: 'org_left', detail: 'You left it.' },
          { status: 409, headers: { 'content-type': 'application/problem+json' } },
        ),
      ),
    );
    expect(await rejection(apiRequest('/bff/publishable-keys', { method: 'POST', body: {} }))).toBeInstanceOf(ApiError);
    expect(tabOrganization()).toBeNull();
  });
});
