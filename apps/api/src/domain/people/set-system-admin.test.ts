import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { setSystemAdmin } from './set-system-admin.js';

const testDb = setupTestDb({ schema, migrations });

async function person(email: string) {
  const organizationId = randomUUID();
  const id = randomUUID();
  await testDb.db.insert(schema.organizations).values({ id: organizationId, name: 'Test organisation' });
  await testDb.db.insert(schema.persons).values({ id, identityId: randomUUID(), email, organizationId });
  const flag = async () => (await testDb.db.select().from(schema.persons).where(eq(schema.persons.id, id)))[0]?.systemAdmin;
  return { flag };
}

describe('setSystemAdmin', () => {
  it('sets and clears the flag by e-mail in any case, and reports whether anything changed', async () => {
    const email = `Ada.${randomUUID()}@Example.com`;
    const ada = await person(email);
    const bystander = await person(`bystander-${randomUUID()}@example.com`);
    expect(await setSystemAdmin(testDb.db, ` ${email.toUpperCase()} `, true)).toEqual({ email, systemAdmin: true, changed: true });
    expect(await ada.flag()).toBe(true);
    expect(await setSystemAdmin(testDb.db, email.toLowerCase(), true)).toEqual({ email, systemAdmin: true, changed: false });
    expect(await setSystemAdmin(testDb.db, email, false)).toEqual({ email, systemAdmin: false, changed: true });
    expect(await setSystemAdmin(testDb.db, email, false)).toEqual({ email, systemAdmin: false, changed: false });
    expect(await ada.flag()).toBe(false);
    expect(await bystander.flag()).toBe(false);
  });

  it('refuses an e-mail nobody has signed in with', async () => {
    await expect(setSystemAdmin(testDb.db, 'nobody@example.com', true)).rejects.toMatchObject({
      code: 'NotFound',
      message: 'No person with the e-mail nobody@example.com has signed in yet; a person exists after their first sign-in to the console.',
    });
  });
});
