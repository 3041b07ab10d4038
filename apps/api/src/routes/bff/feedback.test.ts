import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { feedback, persons } from '../../db/schema/index.js';
import { setupTestApp } from '../../testing/setup-test-app.js';

const adminEmail = `feedback-admin-${Date.now()}@example.com`;
const t = setupTestApp({ SYSTEM_ADMIN_EMAILS: adminEmail }, { identity: true });

let admin = '';
let sender: { email: string; cookie: string };

const submit = (payload: unknown, cookie = sender.cookie) =>
  t.app.inject({ method: 'POST', url: '/bff/feedback', payload: payload as object, headers: { cookie } });

beforeAll(async () => {
  admin = (await t.users.signUp({ email: adminEmail })).cookie;
  sender = await t.users.signUp();
}, 60_000);

describe('POST /bff/feedback', () => {
  it('stores the feedback under the sender, and an admin sees it with their e-mail', async () => {
    const response = await submit({ type: 'feature_request', description: '  Charts per key, please.  ' });
    expect(response.statusCode).toBe(201);
    const { id } = response.json();
    expect(response.json()).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const listed = await t.app.inject({ method: 'GET', url: '/admin/feedback', headers: { cookie: admin } });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().items).toContainEqual({ id, fromEmail: sender.email, type: 'feature_request', description: 'Charts per key, please.' });
    const [row] = await t.testDb.db.select().from(feedback).where(eq(feedback.id, id));
    const [person] = await t.testDb.db.select().from(persons).where(eq(persons.email, sender.email));
    expect(row).toMatchObject({ personId: person?.id, fromEmail: sender.email });
  });

  it('accepts every documented type and a description of exactly 5000 characters', async () => {
    for (const type of ['bug', 'question', 'key_deletion', 'other']) expect((await submit({ type, description: 'x' })).statusCode).toBe(201);
    expect((await submit({ type: 'other', description: 'y'.repeat(5000) })).statusCode).toBe(201);
  });

  it.each([
    ['an empty description', { type: 'bug', description: '' }, 'description', 'This field is required'],
    ['a blank description', { type: 'bug', description: '   ' }, 'description', 'This field is required'],
    ['no description', { type: 'bug' }, 'description', 'This field is required'],
    ['5001 characters', { type: 'bug', description: 'z'.repeat(5001) }, 'description', 'Maximum length is 5000'],
    ['an unknown type', { type: 'praise', description: 'Nice' }, 'type', 'type must be one of bug, feature_request, question, key_deletion, other'],
  ])('rejects %s with 400 naming the field', async (_case, payload, field, message) => {
    const response = await submit(payload);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 400, code: 'BadRequest', errors: [{ field, message }] });
  });

  it('answers 401 without a session', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/bff/feedback', payload: { type: 'bug', description: 'x' } });
    expect(response.statusCode).toBe(401);
  });
});
