import { createHash, randomUUID } from 'node:crypto';
import type { Mail, Mailer } from '@meterway/service';
import { asc, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, invitations, organizations } from '../../db/schema/index.js';
import { setupTestApp } from '../../testing/setup-test-app.js';
import { teamsOf } from '../../testing/teams.js';

const consoleUrl = 'https://console.example.com';
/** The mail the api sent; `down` makes the transport refuse, as an unreachable SMTP server does. */
const outbox = { sent: [] as Mail[], down: false };
const mailer: Mailer = {
  send: async (mail) => {
    if (outbox.down) throw new Error('connect ECONNREFUSED 127.0.0.1:25');
    outbox.sent.push(mail);
  },
};
const t = setupTestApp({ CONSOLE_URL: consoleUrl }, { identity: true, mailer });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const mailsTo = (email: string) => outbox.sent.filter((mail) => mail.to === email.toLowerCase());
const { call, tokenFor, invite, accept, join } = teamsOf(
  () => t.app,
  async (email) => mailsTo(email).at(-1)?.link,
);

type Person = { email: string; cookie: string };
/** A signed-up person, provisioned (with an organisation they own) by a first request. */
async function person(): Promise<Person & { organizationId: string; personId: string }> {
  const user = await t.users.signUp();
  const organizationId = (await call(user.cookie, 'GET', '/bff/me')).json().organizationId;
  const personId = (await call(user.cookie, 'GET', '/bff/members')).json().members[0].personId;
  return { email: user.email, cookie: user.cookie, organizationId, personId };
}
const me = async (who: Person) => (await call(who.cookie, 'GET', '/bff/me')).json();
const members = async (who: Person) => (await call(who.cookie, 'GET', '/bff/members')).json();
const memberId = async (who: Person, email: string) =>
  (await members(who)).members.find((member: { email: string }) => member.email === email)?.personId as string;
const actionsIn = async (organizationId: string) =>
  (
    await t.testDb.db
      .select({ action: auditEntries.action, actorEmail: auditEntries.actorEmail, target: auditEntries.target, changes: auditEntries.changes })
      .from(auditEntries)
      .where(eq(auditEntries.organizationId, organizationId))
      .orderBy(asc(auditEntries.createdAt), asc(auditEntries.id))
  ).filter((entry) => entry.action.startsWith('member.') || entry.action.startsWith('organization.'));

let owner: Awaited<ReturnType<typeof person>>;
beforeAll(async () => {
  owner = await person();
  // An organisation a month old, as a team that invites people is: past the first week's cap on invitations.
  await t.testDb.db
    .update(organizations)
    .set({ createdAt: new Date(Date.now() - 30 * 86_400_000) })
    .where(eq(organizations.id, owner.organizationId));
}, 60_000);

describe('invitations', () => {
  it('invites by e-mail, mails a link whose token only the mail holds, and the invitee joins with the role', async () => {
    const invitee = await t.users.signUp();
    const before = Date.now();
    const invited = await invite(owner, invitee.email.toUpperCase(), 'developer');
    expect(invited.statusCode, invited.body).toBe(201);
    const invitation = invited.json();
    expect(invitation).toEqual({
      invitationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: invitee.email,
      role: 'developer',
      expiresAt: expect.any(String),
    });
    const lifetime = Date.parse(invitation.expiresAt) - before;
    expect(lifetime).toBeGreaterThanOrEqual(7 * 24 * 3600_000);
    expect(lifetime).toBeLessThan(7 * 24 * 3600_000 + 60_000);

    const [mail] = mailsTo(invitee.email);
    const token = await tokenFor(invitee.email);
    // The organisation it was sent from, then 32 random bytes.
    expect(token).toMatch(new RegExp(`^${owner.organizationId}\\.[A-Za-z0-9_-]{43}$`));
    const { organizationName } = await me(owner);
    expect(mail).toMatchObject({ to: invitee.email, link: `${consoleUrl}/invitations/${token}` });
    expect(mail?.subject).toBe(`${owner.email} invited you to join ${organizationName} on Meterway as a developer`);
    for (const part of [owner.email, organizationName, 'as a developer', `${consoleUrl}/invitations/${token}`, invitation.expiresAt.slice(11, 16)]) {
      expect(mail?.text).toContain(part);
    }
    const [row] = await t.testDb.db.select().from(invitations).where(eq(invitations.id, invitation.invitationId));
    expect(row?.tokenHash).toBe(sha256(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect((await members(owner)).invitations).toContainEqual(invitation);

    const accepted = await accept(invitee, token);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toEqual({ organizationId: owner.organizationId, organizationName, role: 'developer' });
    const list = await members(owner);
    expect(list.members).toEqual([
      { personId: owner.personId, email: owner.email, role: 'owner', joinedAt: expect.any(String), keysMade: [] },
      { personId: expect.any(String), email: invitee.email, role: 'developer', joinedAt: expect.any(String), keysMade: [] },
    ]);
    expect(list.invitations).not.toContainEqual(expect.objectContaining({ email: invitee.email }));
    // The invitee works in the organisation now, with the role, and still belongs to their own.
    const theirs = await me(invitee);
    expect(theirs).toMatchObject({ organizationId: owner.organizationId, role: 'developer' });
    expect(theirs.organizations).toHaveLength(2);
    // Used up: the link does not work twice.
    expect((await accept(invitee, token)).statusCode).toBe(404);
    expect(await actionsIn(owner.organizationId)).toEqual(
      expect.arrayContaining([
        { action: 'member.invited', actorEmail: owner.email, target: invitee.email, changes: { role: { to: 'developer' } } },
        { action: 'member.joined', actorEmail: invitee.email, target: invitee.email, changes: { role: { to: 'developer' } } },
      ]),
    );
  });

  it('refuses the link to anyone signed in with another address (403 naming the invited one), and an unknown token (404)', async () => {
    const invited = `someone-else-${Date.now()}@example.com`;
    expect((await invite(owner, invited, 'billing')).statusCode).toBe(201);
    const stranger = await t.users.signUp();
    const refused = await accept(stranger, await tokenFor(invited));
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json().detail).toBe(`This invitation was sent to ${invited}. Sign in with that address to accept it.`);
    expect((await members(owner)).invitations).toContainEqual(expect.objectContaining({ email: invited }));
    expect((await me(stranger)).organizations).toHaveLength(1);

    const unknown = await accept(stranger, 'x'.repeat(43));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().detail).toBe('This invitation link is unknown or has expired. Ask for a new invitation.');
  });

  it('a token naming another organisation, of another shape or mailed before tokens named one opens nothing (404)', async () => {
    const invitee = await t.users.signUp();
    const { invitationId } = (await invite(owner, invitee.email, 'developer')).json();
    const token = await tokenFor(invitee.email);
    const secret = token.slice(token.indexOf('.') + 1);
    const theirs = (await me(invitee)).organizationId;
    // A link mailed before: 32 random bytes alone, stored as their hash.
    const older = { token: 'o'.repeat(43), email: `older-${Date.now()}@example.com` };
    await t.testDb.db.insert(invitations).values({
      id: randomUUID(),
      organizationId: owner.organizationId,
      email: older.email,
      role: 'developer',
      tokenHash: sha256(older.token),
      invitedBy: owner.personId,
      expiresAt: new Date(Date.now() + 3600_000),
    });
    const olderInvitee = await t.users.signUp({ email: older.email });
    const refused: [Person, string][] = [
      [olderInvitee, older.token],
      [olderInvitee, `${owner.organizationId}.${older.token}`],
      ...[
        `${theirs}.${secret}`,
        `${randomUUID()}.${secret}`,
        secret,
        `not-a-uuid.${secret}`,
        `${owner.organizationId.toUpperCase()}.${secret}`,
        `${owner.organizationId.replaceAll('-', '')}.${secret}`,
        `{${owner.organizationId}}.${secret}`,
        `${owner.organizationId}.`,
        `${owner.organizationId}`,
        `.${secret}`,
        `${token}.${secret}`,
        `${token} `,
        `${token}\n`,
        `${owner.organizationId}.${secret}%00`,
        `'; select pg_sleep(1); --.${secret}`,
      ].map((forged): [Person, string] => [invitee, forged]),
    ];
    for (const [who, forged] of refused) {
      const response = await accept(who, forged);
      expect(response.statusCode, JSON.stringify(forged)).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json().detail).toBe('This invitation link is unknown or has expired. Ask for a new invitation.');
    }
    expect((await me(invitee)).organizationId).toBe(theirs);
    expect((await members(owner)).invitations).toContainEqual(expect.objectContaining({ invitationId }));
    expect((await accept(invitee, token)).statusCode).toBe(200);
  });

  it('an expired link answers 404 and is no longer listed; inviting the address again replaces it', async () => {
    const invitee = await t.users.signUp();
    const first = (await invite(owner, invitee.email, 'developer')).json();
    const token = await tokenFor(invitee.email);
    await t.testDb.db
      .update(invitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(invitations.id, first.invitationId));
    const expired = await accept(invitee, token);
    expect(expired.statusCode).toBe(404);
    expect(expired.json().detail).toMatch(/unknown or has expired/);
    expect((await members(owner)).invitations).not.toContainEqual(expect.objectContaining({ email: invitee.email }));

    const again = await invite(owner, invitee.email, 'billing');
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({ email: invitee.email, role: 'billing' });
    expect(again.json().invitationId).not.toBe(first.invitationId);
    expect((await accept(invitee, await tokenFor(invitee.email))).json()).toMatchObject({ role: 'billing' });
  });

  it('refuses an address already a member (409) and one with a pending invitation (409)', async () => {
    const member = await t.users.signUp();
    await join(owner, member, 'developer');
    const twice = await invite(owner, member.email, 'admin');
    expect(twice.statusCode).toBe(409);
    expect(twice.json().detail).toBe(`${member.email} is already a member of ${(await me(owner)).organizationName}.`);
    expect((await invite(owner, owner.email.toUpperCase(), 'admin')).statusCode).toBe(409);

    const pending = `pending-${Date.now()}@example.com`;
    expect((await invite(owner, pending, 'developer')).statusCode).toBe(201);
    const duplicate = await invite(owner, pending, 'admin');
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().detail).toMatch(/already has a pending invitation/);
  });

  it('revokes an invitation: its link stops working, and it is gone from the list', async () => {
    const invitee = await t.users.signUp();
    const { invitationId } = (await invite(owner, invitee.email, 'developer')).json();
    const token = await tokenFor(invitee.email);
    expect((await call(owner.cookie, 'DELETE', `/bff/invitations/${invitationId}`)).statusCode).toBe(204);
    expect((await members(owner)).invitations).not.toContainEqual(expect.objectContaining({ invitationId }));
    expect((await accept(invitee, token)).statusCode).toBe(404);
    expect((await call(owner.cookie, 'DELETE', `/bff/invitations/${invitationId}`)).statusCode).toBe(404);
    expect(await actionsIn(owner.organizationId)).toContainEqual({
      action: 'member.invitation_revoked',
      actorEmail: owner.email,
      target: invitee.email,
      changes: { role: { from: 'developer' } },
    });
  });

  it('resends with a new link and expiry: the old link stops working, the new one joins', async () => {
    const invitee = await t.users.signUp();
    const first = (await invite(owner, invitee.email, 'billing')).json();
    const oldToken = await tokenFor(invitee.email);
    await t.testDb.db
      .update(invitations)
      .set({ expiresAt: new Date(Date.now() + 3600_000) })
      .where(eq(invitations.id, first.invitationId));
    const resent = await call(owner.cookie, 'POST', `/bff/invitations/${first.invitationId}/resend`);
    expect(resent.statusCode, resent.body).toBe(200);
    expect(resent.json()).toMatchObject({ invitationId: first.invitationId, email: invitee.email, role: 'billing' });
    expect(Date.parse(resent.json().expiresAt)).toBeGreaterThan(Date.now() + 6 * 24 * 3600_000);
    expect(mailsTo(invitee.email)).toHaveLength(2);
    const newToken = await tokenFor(invitee.email);
    expect(newToken).not.toBe(oldToken);
    expect((await accept(invitee, oldToken)).statusCode).toBe(404);
    expect((await accept(invitee, newToken)).statusCode).toBe(200);
    expect(await actionsIn(owner.organizationId)).toContainEqual({
      action: 'member.invitation_resent',
      actorEmail: owner.email,
      target: invitee.email,
      changes: {},
    });
  });

  it('answers 503 when the mail cannot be sent, keeps the invitation, and Resend sends it once mail works again', async () => {
    const invitee = await t.users.signUp();
    outbox.down = true;
    const failed = await invite(owner, invitee.email, 'developer').finally(() => {
      outbox.down = false;
    });
    expect(failed.statusCode).toBe(503);
    expect(failed.json().detail).toBe(`The invitation to ${invitee.email} is saved, but its e-mail could not be sent. Resend it in a moment.`);
    expect(failed.body).not.toContain('ECONNREFUSED');
    const { invitationId } = failed.json();
    expect((await members(owner)).invitations).toContainEqual(expect.objectContaining({ invitationId, email: invitee.email }));
    expect(mailsTo(invitee.email)).toHaveLength(0);
    expect((await call(owner.cookie, 'POST', `/bff/invitations/${invitationId}/resend`)).statusCode).toBe(200);
    expect((await accept(invitee, await tokenFor(invitee.email))).statusCode).toBe(200);
  });

  it('accepting while already a member succeeds and changes no role', async () => {
    const member = await t.users.signUp();
    await join(owner, member, 'developer');
    // A second link to the same person, stored before they joined (the one pending invitation per address rules it out since).
    const token = `${owner.organizationId}.a-second-link-to-a-member`;
    const invitationId = randomUUID();
    await t.testDb.db.insert(invitations).values({
      id: invitationId,
      organizationId: owner.organizationId,
      email: member.email,
      role: 'admin',
      tokenHash: sha256(token),
      invitedBy: owner.personId,
      expiresAt: new Date(Date.now() + 3600_000),
    });
    const again = await accept(member, token);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ organizationId: owner.organizationId, role: 'developer' });
    expect(await t.testDb.db.select().from(invitations).where(eq(invitations.id, invitationId))).toEqual([]);
  });

  it.each([
    ['no e-mail', { role: 'developer' }, 'email', 'This field is required'],
    ['an empty e-mail', { email: '', role: 'developer' }, 'email', 'This field is required'],
    ['a blank e-mail', { email: '   ', role: 'developer' }, 'email', 'This field is required'],
    ['two characters', { email: 'a@', role: 'developer' }, 'email', 'Minimum length is 3'],
    ['101 characters', { email: `${'a'.repeat(89)}@example.com`, role: 'developer' }, 'email', 'Maximum length is 100'],
    ['an invalid address', { email: 'not-an-address', role: 'developer' }, 'email', 'Enter a valid e-mail address'],
    ['an unknown role', { email: 'x@example.com', role: 'guest' }, 'role', 'role must be one of owner, admin, developer, billing'],
  ])('refuses %s with a 400 problem naming the field', async (_case, payload, field, message) => {
    const response = await call(owner.cookie, 'POST', '/bff/invitations', payload);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 400, code: 'BadRequest', errors: [{ field, message }] });
  });
});

describe('members and roles', () => {
  it('keeps the last owner: no demoting, removing or leaving (409); with a second owner, each is possible', async () => {
    const founder = await person();
    const demoted = await call(founder.cookie, 'PUT', `/bff/members/${founder.personId}`, { role: 'admin' });
    expect(demoted.statusCode).toBe(409);
    expect(demoted.json().detail).toBe(`${founder.email} is the last owner of ${(await me(founder)).organizationName}: make another member an owner first.`);
    expect((await call(founder.cookie, 'DELETE', `/bff/members/${founder.personId}`)).statusCode).toBe(409);
    const left = await call(founder.cookie, 'POST', `/bff/organizations/${founder.organizationId}/leave`);
    expect(left.statusCode).toBe(409);
    expect(left.json().detail).toMatch(/^You are the last owner of .*: make another member an owner before you leave\.$/);

    const partner = await t.users.signUp();
    await join(founder, partner, 'admin');
    const partnerId = await memberId(founder, partner.email);
    const promoted = await call(founder.cookie, 'PUT', `/bff/members/${partnerId}`, { role: 'owner' });
    expect(promoted.json()).toMatchObject({ personId: partnerId, email: partner.email, role: 'owner' });
    expect((await call(founder.cookie, 'PUT', `/bff/members/${founder.personId}`, { role: 'billing' })).json()).toMatchObject({ role: 'billing' });
    expect(await actionsIn(founder.organizationId)).toEqual(
      expect.arrayContaining([
        { action: 'member.role_changed', actorEmail: founder.email, target: partner.email, changes: { role: { from: 'admin', to: 'owner' } } },
        { action: 'member.role_changed', actorEmail: founder.email, target: founder.email, changes: { role: { from: 'owner', to: 'billing' } } },
      ]),
    );
    // Now billing, the founder may no longer manage members.
    expect((await call(founder.cookie, 'GET', '/bff/members')).statusCode).toBe(403);
  });

  it('two owners stepping down at once: one does, the other is refused as the last owner', async () => {
    const first = await person();
    const second = await t.users.signUp();
    await join(first, second, 'owner');
    const secondId = await memberId(first, second.email);
    const answers = await Promise.all([
      call(first.cookie, 'PUT', `/bff/members/${first.personId}`, { role: 'admin' }),
      call(second.cookie, 'PUT', `/bff/members/${secondId}`, { role: 'admin' }),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    const roles = (await members(answers[0]?.statusCode === 200 ? second : first)).members.map((member: { role: string }) => member.role);
    expect(roles.sort()).toEqual(['admin', 'owner']);
  });

  it('an admin manages members but cannot make, unmake, invite or remove an owner (403)', async () => {
    const founder = await person();
    const admin = await t.users.signUp();
    const developer = await t.users.signUp();
    await join(founder, admin, 'admin');
    await join(founder, developer, 'developer');
    const developerId = await memberId(founder, developer.email);

    const promote = await call(admin.cookie, 'PUT', `/bff/members/${developerId}`, { role: 'owner' });
    expect(promote.statusCode).toBe(403);
    expect(promote.json().detail).toBe('Only an owner can make someone an owner or change the role of an owner.');
    expect((await call(admin.cookie, 'PUT', `/bff/members/${founder.personId}`, { role: 'developer' })).statusCode).toBe(403);
    expect((await call(admin.cookie, 'DELETE', `/bff/members/${founder.personId}`)).statusCode).toBe(403);
    expect((await invite(admin, `new-owner-${Date.now()}@example.com`, 'owner')).statusCode).toBe(403);

    expect((await call(admin.cookie, 'PUT', `/bff/members/${developerId}`, { role: 'billing' })).json()).toMatchObject({ role: 'billing' });
    expect((await call(admin.cookie, 'DELETE', `/bff/members/${developerId}`)).statusCode).toBe(204);
    expect((await members(founder)).members.map((member: { email: string }) => member.email)).toEqual([founder.email, admin.email]);
    expect(await actionsIn(founder.organizationId)).toContainEqual({
      action: 'member.removed',
      actorEmail: admin.email,
      target: developer.email,
      changes: { role: { from: 'billing' } },
    });
    // The removed person works in their own organisation again on their next request.
    expect(await me(developer)).toMatchObject({ role: 'owner', organizations: [expect.objectContaining({ role: 'owner' })] });
  });

  it("another organisation's members and invitations answer 404, as ids that exist nowhere", async () => {
    const other = await person();
    const { invitationId } = (await invite(other, `other-${Date.now()}@example.com`, 'developer')).json();
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const id of [other.personId, unknown]) {
      const put = await call(owner.cookie, 'PUT', `/bff/members/${id}`, { role: 'developer' });
      expect(put.statusCode).toBe(404);
      expect(put.json().detail).toBe(`There is no such member in ${(await me(owner)).organizationName}.`);
      expect((await call(owner.cookie, 'DELETE', `/bff/members/${id}`)).statusCode).toBe(404);
    }
    for (const id of [invitationId, unknown]) {
      expect((await call(owner.cookie, 'DELETE', `/bff/invitations/${id}`)).statusCode).toBe(404);
      expect((await call(owner.cookie, 'POST', `/bff/invitations/${id}/resend`)).statusCode).toBe(404);
    }
    expect((await members(other)).invitations).toContainEqual(expect.objectContaining({ invitationId }));
    expect((await call(owner.cookie, 'PUT', '/bff/current-organization', { organizationId: other.organizationId })).statusCode).toBe(404);
    expect((await call(owner.cookie, 'POST', `/bff/organizations/${other.organizationId}/leave`)).statusCode).toBe(404);
  });
});

describe('organisations of a person', () => {
  it('switching the current organisation changes what /bff/me and the keys answer', async () => {
    const founder = await person();
    const key = { name: 'Shared key', budget: 5, budgetType: 'monthly', allowedOrigins: [] };
    const shared = (await call(founder.cookie, 'POST', '/bff/publishable-keys', key)).json();
    const developer = await person();
    const own = (await call(developer.cookie, 'POST', '/bff/publishable-keys', { ...key, name: 'Own key' })).json();
    await join(founder, developer, 'developer');

    const keys = async () => (await call(developer.cookie, 'GET', '/bff/publishable-keys')).json().publishableKeys.map((k: { id: string }) => k.id);
    expect(await me(developer)).toMatchObject({ organizationId: founder.organizationId, role: 'developer' });
    expect(await keys()).toEqual([shared.id]);

    const switched = await call(developer.cookie, 'PUT', '/bff/current-organization', { organizationId: developer.organizationId });
    expect(switched.statusCode).toBe(200);
    expect(switched.json()).toMatchObject({ organizationId: developer.organizationId, role: 'owner' });
    expect(await me(developer)).toMatchObject({ organizationId: developer.organizationId, role: 'owner' });
    expect(await keys()).toEqual([own.id]);
    // The other organisation's key is out of reach from here.
    expect((await call(developer.cookie, 'PUT', `/bff/publishable-keys/${shared.id}`, key)).statusCode).toBe(404);
  });

  it('leaving the current organisation moves the person to another of theirs; creating one makes them its owner', async () => {
    const founder = await person();
    const member = await person();
    await join(founder, member, 'billing');
    const created = await call(member.cookie, 'POST', '/bff/organizations', { name: '  Side project  ' });
    expect(created.statusCode).toBe(201);
    const side = created.json();
    expect(side).toEqual({ organizationId: expect.any(String), organizationName: 'Side project', role: 'owner' });
    expect(await me(member)).toMatchObject({ organizationId: side.organizationId, organizationName: 'Side project', role: 'owner' });
    expect(await actionsIn(side.organizationId)).toEqual([{ action: 'organization.created', actorEmail: member.email, target: 'Side project', changes: {} }]);

    await call(member.cookie, 'PUT', '/bff/current-organization', { organizationId: founder.organizationId });
    const left = await call(member.cookie, 'POST', `/bff/organizations/${founder.organizationId}/leave`);
    expect(left.statusCode).toBe(200);
    // The oldest organisation they still belong to: their own.
    expect(left.json()).toMatchObject({ organizationId: member.organizationId, role: 'owner' });
    const after = await me(member);
    expect(after.organizationId).toBe(member.organizationId);
    expect(after.organizations.map((o: { organizationId: string }) => o.organizationId)).toEqual([member.organizationId, side.organizationId]);
    expect((await members(founder)).members.map((m: { email: string }) => m.email)).toEqual([founder.email]);
    expect(await actionsIn(founder.organizationId)).toContainEqual({
      action: 'member.left',
      actorEmail: member.email,
      target: member.email,
      changes: { role: { from: 'billing' } },
    });
    expect((await call(member.cookie, 'POST', `/bff/organizations/${founder.organizationId}/leave`)).statusCode).toBe(404);
  });

  it.each([
    ['no name', {}, 'This field is required'],
    ['a blank name', { name: '   ' }, 'This field is required'],
    ['two characters', { name: 'ab' }, 'Minimum length is 3'],
    ['101 characters', { name: 'n'.repeat(101) }, 'Maximum length is 100'],
  ])('refuses an organisation with %s (400)', async (_case, payload, message) => {
    const response = await call(owner.cookie, 'POST', '/bff/organizations', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status: 400, errors: [{ field: 'name', message }] });
  });
});

describe('what an organisation can mail (issue #53)', () => {
  it('refuses an organisation name holding a web address or an e-mail address (400), and takes an ordinary one', async () => {
    const founder = await person();
    for (const name of [
      'Billing: your card failed, update it at https://evil.example/pay',
      'Pay at www.evil.example now',
      'Verify at evil-pay.com today',
      'Write to billing@evil.example',
    ]) {
      const refused = await call(founder.cookie, 'POST', '/bff/organizations', { name });
      expect(refused.statusCode, name).toBe(400);
      expect(refused.json(), name).toMatchObject({
        errors: [{ field: 'name', message: 'An organisation name may not contain a web address or an e-mail address' }],
      });
    }
    expect((await call(founder.cookie, 'POST', '/bff/organizations', { name: 'Acme Inc. (R&D), team 2' })).statusCode).toBe(201);
  });

  it('mails at most 10 invitations a day from an organisation in its first week, resends included; then 429 saying from when', async () => {
    const founder = await person();
    const sent = [];
    for (let i = 0; i < 9; i++) sent.push(await invite(founder, `quota-${i}-${randomUUID().slice(0, 8)}@example.com`, 'developer'));
    expect(sent.map((response) => response.statusCode)).toEqual(Array(9).fill(201));
    expect((await call(founder.cookie, 'POST', `/bff/invitations/${sent[0]!.json().invitationId}/resend`)).statusCode).toBe(200);

    const refused = await invite(founder, `quota-over-${randomUUID().slice(0, 8)}@example.com`, 'developer');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(86_000);
    expect(refused.json().detail).toMatch(
      /^This organisation has sent 10 invitations in the last 24 hours, the most it may in its first week\. The next can be sent from \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/,
    );
    expect((await call(founder.cookie, 'POST', `/bff/invitations/${sent[1]!.json().invitationId}/resend`)).statusCode).toBe(429);
    const mailed = outbox.sent.filter((mail) => mail.to.startsWith('quota-over-'));
    expect(mailed).toEqual([]);

    // A week on, the organisation may send more.
    await t.testDb.db
      .update(organizations)
      .set({ createdAt: new Date(Date.now() - 8 * 86_400_000) })
      .where(eq(organizations.id, founder.organizationId));
    expect((await invite(founder, `quota-later-${randomUUID().slice(0, 8)}@example.com`, 'developer')).statusCode).toBe(201);
  });
});

describe('each console tab acts in the organisation it shows (issue #53)', () => {
  it('answers for the organisation a request names, whatever another tab switched to; a key made there lands there', async () => {
    const founder = await person();
    const member = await person();
    await join(founder, member, 'developer');
    // Joining made the team the member's current organisation; a tab still shows the member's own.
    expect((await me(member)).organizationId).toBe(founder.organizationId);
    const inTab = (organizationId: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: { cookie: member.cookie, 'meterway-organization': organizationId }, ...(payload ? { payload } : {}) });

    const own = (await inTab(member.organizationId, 'GET', '/bff/me')).json();
    expect(own).toMatchObject({ organizationId: member.organizationId, role: 'owner' });
    const team = (await inTab(founder.organizationId, 'GET', '/bff/me')).json();
    expect(team).toMatchObject({ organizationId: founder.organizationId, role: 'developer' });

    // The other tab switches (the person's current organisation, for new tabs); this one keeps its own.
    await call(member.cookie, 'PUT', '/bff/current-organization', { organizationId: member.organizationId });
    const key = await inTab(founder.organizationId, 'POST', '/bff/publishable-keys', { name: 'Team key', budget: 1, allowedOrigins: ['https://team.example'] });
    expect(key.statusCode, key.body).toBe(201);
    const teamKeys = (await call(founder.cookie, 'GET', '/bff/publishable-keys')).json().publishableKeys;
    expect(teamKeys.map((listed: { name: string }) => listed.name)).toContain('Team key');
    // A developer in the team: what the role there does not allow is refused there.
    expect((await inTab(founder.organizationId, 'GET', '/bff/credit-history')).statusCode).toBe(403);
  });

  it('refuses a tab naming an organisation the person left, or never joined, saying so (409), and does nothing there', async () => {
    const founder = await person();
    const member = await person();
    const stranger = await person();
    await join(founder, member, 'admin');
    await call(member.cookie, 'POST', `/bff/organizations/${founder.organizationId}/leave`);
    for (const organizationId of [founder.organizationId, stranger.organizationId]) {
      const refused = await t.app.inject({
        method: 'POST',
        url: '/bff/publishable-keys',
        headers: { cookie: member.cookie, 'meterway-organization': organizationId },
        payload: { name: 'Stale tab key', budget: 1, allowedOrigins: ['https://team.example'] },
      });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        code: 'OrganizationLeft',
        organizationId,
        detail: expect.stringMatching(/^You are no longer a member of the organisation this tab was showing, so it did nothing there\. It now shows /),
      });
    }
    const keys = (await call(founder.cookie, 'GET', '/bff/publishable-keys')).json().publishableKeys;
    expect(keys.map((listed: { name: string }) => listed.name)).not.toContain('Stale tab key');
  });
});
