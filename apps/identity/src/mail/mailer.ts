import type { Mail as SharedMail } from '@meterway/service';

export type { Mailer } from '@meterway/service';

/** Identity's messages name their template, so the dev outbox and the tests can tell them apart. */
export type Mail = SharedMail & {
  template: 'verification_code' | 'recovery_code' | 'login_code' | 'recovery_link' | 'password_changed' | 'email_changed' | 'totp_removed';
};
