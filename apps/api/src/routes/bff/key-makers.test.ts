import type { Mail, Mailer } from '@meterway/service';
import { and, asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEntries } from '../../db/schema/index.js';
import { setupTestApp, type TestMember } from '../../testing/setup-test-app.js';
import { teamsOf } from '../../testing/teams.js';

/**
 * A key never does more than the person who holds its value (issue #53): each key names who made or
 * last rolled it, with their role now; an admin key stops opening the developer API once that
 * person is no longer an owner or admin; a removed member's keys are listed with them and may be
 * deleted with the removal.
 */
const sent: Mail[] = [];
const mailer: Mailer = { send: async (mail) => void sent.push(mail) };
const t = setupTestApp({}, { identity: true, mailer });
const { call, join } = teamsOf(
  () => t.app,
  async (email) => sent.filter((mail) => mail.to === email.toLowerCase()).at(-1)?.link,
);
const developerApi = (key: string, method: 'GET' | 'POST' = 'GET', url = '/v1/organization/balance', payload?: object) =>
  t.app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, ...(payload ? { payload } : {}) });
const gateway = (key: string) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}`, origin: 'https://shop.example.com' },
    payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] },
  });
const keyForm = { budget: 10, budgetType: 'monthly' };

/** An owner and a member of the owner's organisation with the role, both signed up and provisioned. */
async function team(role: 'admin' | 'developer') {
  const owner = await t.signUpMember();
  const member = await t.signUpMember();
  await join(owner, member, role);
  return { owner, member };
}
const keysOf = async (who: TestMember, kind: 'publishable' | 'secret') =>
  (await call(who.cookie, 'GET', `/bff/${kind}-keys`)).json()[kind === 'publishable' ? 'publishableKeys' : 'secretKeys'] as {
    id: string;
    name: string;
    madeBy: { personId: string; email: string; role: string | null } | null;
  }[];

describe('a key follows its maker (issue #53)', () => {
  it("an admin key stops when its maker is demoted, works again when they are an admin again, and an owner's roll takes it over", async () => {
    const { owner, member: admin } = await team('admin');
    const made = (await call(admin.cookie, 'POST', '/bff/secret-keys', { ...keyForm, name: 'Reporting', scope: 'admin' })).json();
    expect(made.madeBy).toEqual({ personId: admin.personId, email: admin.email, role: 'admin' });
    expect((await developerApi(made.value)).statusCode).toBe(200);

    await call(owner.cookie, 'PUT', `/bff/members/${admin.personId}`, { role: 'developer' });
    const refused = await developerApi(made.value);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({ type: 'permission_error', code: 'key_maker_lacks_role' });
    expect(refused.json().error.message).toMatch(/no longer an owner or admin of the organisation\. An owner or admin can roll it/);
    // The owner sees why: the maker's role now.
    expect((await keysOf(owner, 'secret')).find((key) => key.id === made.id)?.madeBy).toEqual({
      personId: admin.personId,
      email: admin.email,
      role: 'developer',
    });

    await call(owner.cookie, 'PUT', `/bff/members/${admin.personId}`, { role: 'admin' });
    expect((await developerApi(made.value)).statusCode).toBe(200);

    await call(owner.cookie, 'PUT', `/bff/members/${admin.personId}`, { role: 'billing' });
    const rolled = await call(owner.cookie, 'POST', `/bff/secret-keys/${made.id}/roll`, { overlapHours: 0 });
    expect(rolled.json().madeBy).toEqual({ personId: owner.personId, email: owner.email, role: 'owner' });
    expect((await developerApi(rolled.json().value)).statusCode).toBe(200);
    expect((await developerApi(made.value)).statusCode).toBe(401);
  });

  it("keys made through the developer API are its admin key's maker's, and stop or stay with them", async () => {
    const { owner, member: admin } = await team('admin');
    const adminKey = (await call(admin.cookie, 'POST', '/bff/secret-keys', { ...keyForm, name: 'Provisioner', scope: 'admin' })).json();
    const created = await developerApi(adminKey.value, 'POST', '/v1/organization/publishable-keys', {
      ...keyForm,
      name: 'Tenant 1',
      allowedOrigins: ['https://shop.example.com'],
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().madeBy).toEqual({ personId: admin.personId, email: admin.email, role: 'admin' });
    const listed = (await call(owner.cookie, 'GET', '/bff/members')).json().members.find((member: { personId: string }) => member.personId === admin.personId);
    expect(listed.keysMade).toEqual([
      { id: adminKey.id, name: 'Provisioner', kind: 'secret', scope: 'admin' },
      { id: created.json().id, name: 'Tenant 1', kind: 'publishable', scope: null },
    ]);
  });

  it("a removed member's keys stay, listed with them as gone, unless the removal deletes them; their admin key stops either way", async () => {
    const { owner, member: developer } = await team('developer');
    const kept = (
      await call(developer.cookie, 'POST', '/bff/publishable-keys', { ...keyForm, name: 'Kept', allowedOrigins: ['https://shop.example.com'] })
    ).json();
    await call(owner.cookie, 'DELETE', `/bff/members/${developer.personId}`);
    expect((await keysOf(owner, 'publishable')).find((key) => key.id === kept.id)?.madeBy).toEqual({
      personId: developer.personId,
      email: developer.email,
      role: null,
    });
    // Kept means kept: the gateway still takes it (it answers past the key check, here for want of credit).
    expect((await gateway(kept.value)).statusCode).toBe(402);

    const { owner: founder, member: admin } = await team('admin');
    const page = (
      await call(admin.cookie, 'POST', '/bff/publishable-keys', { ...keyForm, name: 'Storefront', allowedOrigins: ['https://shop.example.com'] })
    ).json();
    const server = (await call(admin.cookie, 'POST', '/bff/secret-keys', { ...keyForm, name: 'Backend', scope: 'admin' })).json();
    const ownersOwn = (await call(founder.cookie, 'POST', '/bff/publishable-keys', { ...keyForm, name: 'Owner', allowedOrigins: [] })).json();

    const removed = await call(founder.cookie, 'DELETE', `/bff/members/${admin.personId}?keys=delete`);
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await keysOf(founder, 'publishable')).map((key) => key.id)).toEqual([ownersOwn.id]);
    expect(await keysOf(founder, 'secret')).toEqual([]);
    expect((await gateway(page.value)).statusCode).toBe(401);
    expect((await developerApi(server.value)).statusCode).toBe(401);
    const deletions = await t.testDb.db
      .select({ actorEmail: auditEntries.actorEmail, target: auditEntries.target, changes: auditEntries.changes })
      .from(auditEntries)
      .where(and(eq(auditEntries.organizationId, founder.organizationId), eq(auditEntries.action, 'key.deleted')))
      .orderBy(asc(auditEntries.target));
    const reason = { reason: { to: `Its maker, ${admin.email}, was removed from the organisation.` } };
    expect(deletions).toEqual([
      { actorEmail: founder.email, target: 'Backend', changes: reason },
      { actorEmail: founder.email, target: 'Storefront', changes: reason },
    ]);
  });

  it('refuses a removal that names neither keep nor delete (400), removing no one', async () => {
    const { owner, member } = await team('developer');
    const answer = await call(owner.cookie, 'DELETE', `/bff/members/${member.personId}?keys=rotate`);
    expect(answer.statusCode).toBe(400);
    expect(answer.json().detail).toMatch(/keys must be keep or delete/);
    expect((await call(owner.cookie, 'GET', '/bff/members')).json().members).toHaveLength(2);
  });
});
