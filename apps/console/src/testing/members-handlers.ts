import type { Invitation, ListedMember, MemberList, OrganizationMembership, Problem } from '@meterway/contracts';
import { HttpResponse, http } from 'msw';
import { problem, type RecordedRequest } from './keys-handlers';
import { testRuntimeConfig } from './runtime-config';

/**
 * MSW handlers for teams (issue #21): the members page (members, invitations), the avatar menu's
 * organisations (switch, create, leave) and the invitation link's accept. A mutation handler given
 * a `requests` array records there what it received (the id from the path and the JSON body);
 * `failure` answers that status as problem details, `refusal` adding to them (a 409's detail).
 */

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

export const buildMember = (overrides: Partial<ListedMember> = {}): ListedMember => ({
  personId: '7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918',
  email: 'ada@example.com',
  role: 'owner',
  joinedAt: '2026-01-02T07:08:09.000Z',
  keysMade: [],
  ...overrides,
});

export const buildInvitation = (overrides: Partial<Invitation> = {}): Invitation => ({
  invitationId: '1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9',
  email: 'grace@example.com',
  role: 'developer',
  expiresAt: '2026-12-01T10:00:00.000Z',
  ...overrides,
});

export const buildMembership = (overrides: Partial<OrganizationMembership> = {}): OrganizationMembership => ({
  organizationId: '2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901',
  organizationName: 'Difference Engines',
  role: 'developer',
  ...overrides,
});

const record = async (requests: RecordedRequest[] | undefined, request: Request, id?: string) => {
  const text = await request.clone().text();
  const { search } = new URL(request.url);
  requests?.push({ ...(id ? { id } : {}), ...(text ? { body: JSON.parse(text) as unknown } : {}), ...(search ? { search } : {}) });
};

type MutationOptions = { requests?: RecordedRequest[]; failure?: number; refusal?: Partial<Problem> };

const refused = ({ failure, refusal }: MutationOptions) => (failure ? problem(failure, refusal) : undefined);

export const membersHandlers = {
  /**
   * GET /bff/members. Each call answers the next of `answers` (the last one again once they run
   * out), so a test sees the list change after a mutation; `until` holds the answer back, for the
   * loading state.
   */
  list: (answers: MemberList | MemberList[], { until }: { until?: Promise<unknown> } = {}) => {
    const lists = Array.isArray(answers) ? answers : [answers];
    let call = 0;
    return http.get(`${api}/bff/members`, async () => {
      await until;
      return HttpResponse.json(lists[Math.min(call++, lists.length - 1)]);
    });
  },
  listFailure: (status = 500) => http.get(`${api}/bff/members`, () => problem(status)),

  /** PUT /bff/members/:personId: 200 with the member in its new role. */
  changeRole: (options: MutationOptions = {}) =>
    http.put(`${api}/bff/members/:personId`, async ({ request, params }) => {
      await record(options.requests, request, String(params.personId));
      const { role } = (await request.json()) as Pick<ListedMember, 'role'>;
      const { keysMade: _listedOnly, ...member } = buildMember({ personId: String(params.personId), role });
      return refused(options) ?? HttpResponse.json(member);
    }),

  /** DELETE /bff/members/:personId: 204. */
  remove: (options: MutationOptions = {}) =>
    http.delete(`${api}/bff/members/:personId`, async ({ request, params }) => {
      await record(options.requests, request, String(params.personId));
      return refused(options) ?? new HttpResponse(null, { status: 204 });
    }),

  /** POST /bff/invitations: 201 with the invitation. */
  invite: (options: MutationOptions = {}) =>
    http.post(`${api}/bff/invitations`, async ({ request }) => {
      await record(options.requests, request);
      const body = (await request.json()) as Pick<Invitation, 'email' | 'role'>;
      return refused(options) ?? HttpResponse.json(buildInvitation(body), { status: 201 });
    }),

  /** DELETE /bff/invitations/:invitationId: 204. */
  revoke: (options: MutationOptions = {}) =>
    http.delete(`${api}/bff/invitations/:invitationId`, async ({ request, params }) => {
      await record(options.requests, request, String(params.invitationId));
      return refused(options) ?? new HttpResponse(null, { status: 204 });
    }),

  /** POST /bff/invitations/:invitationId/resend: 200 with the invitation. */
  resend: (options: MutationOptions = {}) =>
    http.post(`${api}/bff/invitations/:invitationId/resend`, async ({ request, params }) => {
      await record(options.requests, request, String(params.invitationId));
      return refused(options) ?? HttpResponse.json(buildInvitation({ invitationId: String(params.invitationId) }));
    }),

  /** POST /bff/invitations/accept: the organisation joined, now the current one. */
  accept: (joined: OrganizationMembership = buildMembership(), options: MutationOptions = {}) =>
    http.post(`${api}/bff/invitations/accept`, async ({ request }) => {
      await record(options.requests, request);
      return refused(options) ?? HttpResponse.json(joined);
    }),
};

export const organizationsHandlers = {
  /** PUT /bff/current-organization: the organisation switched to. */
  switchTo: (current: OrganizationMembership = buildMembership(), options: MutationOptions = {}) =>
    http.put(`${api}/bff/current-organization`, async ({ request }) => {
      await record(options.requests, request);
      return refused(options) ?? HttpResponse.json(current);
    }),

  /** POST /bff/organizations: 201 with the new organisation, owned by the person. */
  create: (options: MutationOptions = {}) =>
    http.post(`${api}/bff/organizations`, async ({ request }) => {
      await record(options.requests, request);
      const { name } = (await request.json()) as { name: string };
      return refused(options) ?? HttpResponse.json(buildMembership({ organizationName: name, role: 'owner' }), { status: 201 });
    }),

  /** POST /bff/organizations/:organizationId/leave: the current organisation afterwards. */
  leave: (current: OrganizationMembership = buildMembership(), options: MutationOptions = {}) =>
    http.post(`${api}/bff/organizations/:organizationId/leave`, async ({ request, params }) => {
      await record(options.requests, request, String(params.organizationId));
      return refused(options) ?? HttpResponse.json(current);
    }),
};
