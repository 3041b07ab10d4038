/** An outgoing message; `code` and `link` let the dev outbox show what matters at a glance. */
export type Mail = {
  to: string;
  subject: string;
  text: string;
  html: string;
  template: 'verification_code' | 'recovery_code' | 'recovery_link';
  code?: string;
  link?: string;
};

export type Mailer = { send: (mail: Mail) => Promise<void> };
