/**
 * An outgoing message. `template`, `code` and `link` are for the dev outbox: they let a developer
 * (and a test) see at a glance what a mail is and what it carries.
 */
export type Mail = {
  to: string;
  subject: string;
  text: string;
  html: string;
  template?: string;
  code?: string;
  link?: string;
};

export type Mailer = { send: (mail: Mail) => Promise<void> };
