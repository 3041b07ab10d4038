/**
 * Kratos UI texts: numbered messages with exact English texts (identity-protocol.md §14). Clients
 * and translations key on the id, so ids and texts never change.
 */
export type UiTextType = 'info' | 'error' | 'success';
export type UiText = { id: number; text: string; type: UiTextType; context?: Record<string, unknown> };

const info = (id: number, text: string, context?: Record<string, unknown>): UiText => ({ id, text, type: 'info', ...(context ? { context } : {}) });
const error = (id: number, text: string, context?: Record<string, unknown>): UiText => ({ id, text, type: 'error', ...(context ? { context } : {}) });
const success = (id: number, text: string, context?: Record<string, unknown>): UiText => ({ id, text, type: 'success', ...(context ? { context } : {}) });

const minutes = (value: number) => value.toFixed(2);

export const messages = {
  signIn: () => info(1010001, 'Sign in'),
  confirmItIsYou: () => info(1010003, 'Please confirm this action by verifying that it is you.'),
  completeSecondFactor: () => info(1010004, 'Please complete the second authentication challenge.'),
  authenticationCode: () => info(1010006, 'Authentication code'),
  useAuthenticator: () => info(1010009, 'Use Authenticator'),
  loginCodeSent: () =>
    info(1010014, "A code was sent to the address you provided. If you didn't receive it, please check the spelling of the address and try again."),
  signInWithPassword: () => info(1010022, 'Sign in with password'),
  signUp: () => info(1040001, 'Sign up'),
  settingsSaved: () => success(1050001, 'Your changes have been saved!'),
  unlinkTotp: () => info(1050004, 'Unlink TOTP Authenticator App'),
  totpQrCode: () => info(1050005, 'Authenticator app QR code'),
  totpSecret: (secret: string) => info(1050006, secret, { secret }),
  totpSecretLabel: () => info(1050017, 'This is your authenticator app secret. Use it if you can not scan the QR code.'),
  recoverySucceeded: (privilegedUntil: Date, now: Date) =>
    success(
      1060001,
      `You successfully recovered your account. Please change your password or set up an alternative login method (e.g. social sign in) within the next ${minutes((privilegedUntil.getTime() - now.getTime()) / 60_000)} minutes.`,
      {
        privileged_session_expires_at: privilegedUntil.toISOString(),
        privileged_session_expires_at_unix: Math.floor(privilegedUntil.getTime() / 1000),
        privilegedSessionExpiresAt: privilegedUntil.toISOString(),
      },
    ),
  recoveryLinkSent: () =>
    info(
      1060002,
      'An email containing a recovery link has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
    ),
  recoveryCodeSent: () =>
    info(
      1060003,
      'An email containing a recovery code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
    ),
  password: () => info(1070001, 'Password'),
  emailTrait: () => info(1070002, 'E-Mail', { title: 'E-Mail', name: 'traits.email' }),
  save: () => info(1070003, 'Save'),
  verifyCode: () => info(1070006, 'Verify code'),
  email: () => info(1070007, 'Email'),
  resendCode: () => info(1070008, 'Resend code'),
  continue: () => info(1070009, 'Continue'),
  recoveryCode: () => info(1070010, 'Recovery code'),
  verificationCode: () => info(1070011, 'Verification code'),
  loginCode: () => info(1070013, 'Login code'),
  verified: () => success(1080002, 'You successfully verified your email address.'),
  verificationCodeSent: () =>
    info(
      1080003,
      'An email containing a verification code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
    ),
  generic: (reason: string) => error(4000001, reason, { reason }),
  missingProperty: (property: string) => error(4000002, `Property ${property} is missing.`, { property }),
  tooShort: (min: number, actual: number) => error(4000003, `length must be >= ${min}, but got ${actual}`, { min_length: min, actual_length: actual }),
  passwordCannotBeUsed: (reason: string) => error(4000005, `The password can not be used because ${reason}.`, { reason }),
  invalidCredentials: () =>
    error(4000006, 'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.'),
  duplicateIdentifier: () => error(4000007, 'An account with the same identifier (email, phone, username, ...) exists already.'),
  invalidTotpCode: () => error(4000008, 'The provided authentication code is invalid, please try again.'),
  noTotpDevice: () => error(4000011, 'You have no TOTP device set up.'),
  tooLong: (max: number, actual: number) => error(4000017, `length must be <= ${max}, but got ${actual}`, { max_length: max, actual_length: actual }),
  passwordTooSimilar: () => error(4000031, 'The password can not be used because it is too similar to the identifier.'),
  passwordTooShort: (min: number, actual: number) =>
    error(4000032, `The password must be at least ${min} characters long, but got ${actual}.`, { min_length: min, actual_length: actual }),
  passwordTooLong: (max: number, actual: number) =>
    error(4000033, `The password must be at most ${max} characters long, but got ${actual}.`, { max_length: max, actual_length: actual }),
  passwordBreached: () => error(4000034, 'The password has been found in data breaches and must no longer be used.'),
  accountNotFound: () => error(4000037, 'This account does not exist or has no login method configured.'),
  passwordSameAsOld: () => error(4000039, 'The new password must be different from the old password.'),
  invalidEmail: (value: string) => error(4000040, 'Enter a valid email address', { value }),
  loginFlowExpired: (minutesAgo: number, expiredAt: Date) => expired(4010001, 'login', minutesAgo, expiredAt),
  noLoginStrategy: () => error(4010002, 'Could not find a strategy to log you in with. Did you fill out the form correctly?'),
  noRegistrationStrategy: () => error(4010003, 'Could not find a strategy to sign you up with. Did you fill out the form correctly?'),
  noSettingsStrategy: () => error(4010004, 'Could not find a strategy to update your settings. Did you fill out the form correctly?'),
  alreadyCompleted: (id: 4010007 | 4040002 | 4060001 | 4070002) => error(id, 'The request was already completed successfully and can not be retried.'),
  registrationFlowExpired: (minutesAgo: number, expiredAt: Date) => expired(4040001, 'registration', minutesAgo, expiredAt),
  settingsFlowExpired: (minutesAgo: number, expiredAt: Date) => expired(4050001, 'settings', minutesAgo, expiredAt),
  recoveryTokenInvalid: () => error(4060004, 'The recovery token is invalid or has already been used. Please retry the flow.'),
  recoveryFlowExpired: (minutesAgo: number, expiredAt: Date) => expired(4060005, 'recovery', minutesAgo, expiredAt),
  recoveryCodeInvalid: () => error(4060006, 'The recovery code is invalid or has already been used. Please try again.'),
  verificationTokenInvalid: () => error(4070001, 'The verification token is invalid or has already been used. Please retry the flow.'),
  verificationFlowExpired: (minutesAgo: number, expiredAt: Date) => expired(4070005, 'verification', minutesAgo, expiredAt),
  verificationCodeInvalid: () => error(4070006, 'The verification code is invalid or has already been used. Please try again.'),
} as const;

function expired(id: number, flow: string, minutesAgo: number, expiredAt: Date): UiText {
  return error(id, `The ${flow} flow expired ${minutes(minutesAgo)} minutes ago, please try again.`, {
    expired_at: expiredAt.toISOString(),
    expired_at_unix: Math.floor(expiredAt.getTime() / 1000),
  });
}
