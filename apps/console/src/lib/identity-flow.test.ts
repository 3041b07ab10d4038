import loginChooseMethod from '@meterway/contracts/fixtures/identity/login-choose-method.json';
import loginInvalidCredentials from '@meterway/contracts/fixtures/identity/login-invalid-credentials.json';
import loginSecondFactor from '@meterway/contracts/fixtures/identity/login-second-factor.json';
import registrationInvalid from '@meterway/contracts/fixtures/identity/registration-invalid.json';
import settingsWeakPassword from '@meterway/contracts/fixtures/identity/settings-weak-password.json';
import { describe, expect, it } from 'vitest';
import { csrfToken, flowMessages, isFlowBody, isFlowError, joinMessages, matchesMessage } from './identity-flow';

const invalidCredentials = 'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.';

describe('isFlowError', () => {
  it('is true when a top-level message has type error', () => {
    expect(isFlowError(loginInvalidCredentials.body)).toBe(true);
  });

  it('is false for info messages, no messages, or errors on nodes only (spec §4: top-level)', () => {
    expect(isFlowError(loginSecondFactor.body)).toBe(false);
    expect(isFlowError(loginChooseMethod.body)).toBe(false);
    expect(isFlowError(registrationInvalid.body)).toBe(false);
  });
});

describe('flowMessages', () => {
  it('collects top-level and node-level texts', () => {
    expect(flowMessages(loginInvalidCredentials.body)).toEqual([invalidCredentials]);
    expect(flowMessages(registrationInvalid.body)).toEqual(['Enter a valid email address']);
    expect(flowMessages(settingsWeakPassword.body, 'error')).toEqual(['The password must be at least 8 characters long, but got 5.']);
  });

  it('filters by type', () => {
    expect(flowMessages(loginSecondFactor.body, 'error')).toEqual([]);
    expect(flowMessages(loginSecondFactor.body, 'info')).toEqual(['Please complete the second authentication challenge.']);
  });
});

describe('matchesMessage', () => {
  it('finds a substring in top-level and node-level texts', () => {
    expect(matchesMessage(loginInvalidCredentials.body, 'credentials are invalid')).toBe(true);
    expect(matchesMessage(settingsWeakPassword.body, 'at least 8 characters')).toBe(true);
    expect(matchesMessage(settingsWeakPassword.body, 'The password can not be used')).toBe(false);
  });
});

describe('joinMessages', () => {
  it('joins texts by newlines (spec §8)', () => {
    expect(joinMessages(['one', 'two'])).toBe('one\ntwo');
    expect(joinMessages([])).toBe('');
  });
});

describe('csrfToken and isFlowBody', () => {
  it('reads the csrf_token node and recognises a flow', () => {
    expect(csrfToken(loginChooseMethod.body)).toBe('<csrf_token>');
    expect(isFlowBody(loginInvalidCredentials.body)).toBe(true);
    expect(isFlowBody({ error: { id: 'security_csrf_violation' } })).toBe(false);
    expect(isFlowBody(null)).toBe(false);
  });
});
