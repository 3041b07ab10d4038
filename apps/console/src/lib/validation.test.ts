import { describe, expect, it } from 'vitest';
import { requiredText } from './validation';

const messageFor = (schema: ReturnType<typeof requiredText>, value: string) => {
  const result = schema.safeParse(value);
  return result.success ? undefined : result.error.issues.map((issue) => issue.message);
};

describe('requiredText', () => {
  const field = requiredText({ min: 3, max: 5 });

  it('requires a value that is not only spaces', () => {
    expect(messageFor(field, '')).toEqual(['This field is required']);
    expect(messageFor(field, '   ')).toEqual(['This field is required']);
  });

  it('counts the length after trimming', () => {
    expect(messageFor(field, '  ab  ')).toEqual(['Minimum length is 3']);
    expect(messageFor(field, '  abc  ')).toBeUndefined();
    expect(messageFor(field, ' abcdef ')).toEqual(['Maximum length is 5']);
  });

  it('keeps the value as typed', () => {
    expect(field.parse(' abc ')).toBe(' abc ');
  });
});
