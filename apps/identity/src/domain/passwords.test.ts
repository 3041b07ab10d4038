import { describe, expect, it } from 'vitest';
import { checkPasswordPolicy, hashPassword, verifyPassword } from './passwords.js';

describe('password policy', () => {
  it('rejects short passwords with the byte count, as Kratos words it', () => {
    expect(checkPasswordPolicy('abc', 'ada@example.com')).toMatchObject({
      id: 4000032,
      text: 'The password must be at least 8 characters long, but got 3.',
      type: 'error',
    });
  });

  it('rejects passwords close to the e-mail with a text starting "The password can not be used"', () => {
    for (const password of ['ada@example.com', 'ada@example.co', 'xada@example.comx', 'ada@exampl']) {
      expect(checkPasswordPolicy(password, 'Ada@Example.com')?.id, password).toBe(4000031);
    }
    expect(checkPasswordPolicy('ada@example.com', 'ada@example.com')?.text).toBe('The password can not be used because it is too similar to the identifier.');
  });

  it("rejects common breached passwords, whatever their case, with Kratos' 4000034", () => {
    for (const password of ['password', 'PASSWORD', '12345678', 'qwertyuiop', 'Password1', 'password123']) {
      expect(checkPasswordPolicy(password, 'ada@example.com'), password).toEqual({
        id: 4000034,
        text: 'The password has been found in data breaches and must no longer be used.',
        type: 'error',
      });
    }
  });

  it('accepts a long unrelated password', () => {
    expect(checkPasswordPolicy('correct horse battery staple', 'ada@example.com')).toBeUndefined();
  });
});

describe('argon2id hashes', () => {
  it('verify the right password only', async () => {
    const hashed = await hashPassword('correct horse battery staple');
    expect(hashed).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(hashed, 'correct horse battery staple')).toBe(true);
    expect(await verifyPassword(hashed, 'wrong')).toBe(false);
    expect(await verifyPassword('not a hash', 'wrong')).toBe(false);
  });
});
