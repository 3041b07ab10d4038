import { type CaughtMail, decodedText, startMailCatcher, subjectOf } from '@meterway/service/mail-catcher';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';
import { type Stack, startStack } from '../support/stack.js';

const chromium = useBrowser();

// Issue #21's acceptance: the invitation travels by real SMTP, so this spec boots a stack of its
// own whose identity and api both mail through a catcher (the global stack keeps the dev outbox).
let catcher: Awaited<ReturnType<typeof startMailCatcher>>;
let stack: Stack;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  catcher = await startMailCatcher();
  stack = await startStack({
    env: { SMTP_URL: catcher.url, MAIL_FROM: 'Meterway e2e <no-reply@meterway.test>', IDENTITY_RATE_LIMIT_MULTIPLIER: '10' },
  });
});
afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
  const code = await stack?.stop();
  await catcher?.close();
  if (stack && code !== 0) throw new Error(`The stack did not stop cleanly (exit ${code}):\n${stack.output().slice(-4000)}`);
});

async function newPage() {
  const context = await chromium.browser.newContext();
  contexts.push(context);
  return { context, page: await context.newPage() };
}

/** The `count`-th mail to `email`, once the catcher has it, with the subject it must have. */
async function mailTo(email: string, count: number, subject: string): Promise<CaughtMail> {
  const mail = await catcher.waitForMail(email, count, 15_000);
  expect(subjectOf(mail)).toBe(subject);
  return mail;
}

/** The 6-digit code of identity's verification mail, the `count`-th mail to `email`. */
async function verificationCode(email: string, count: number): Promise<string> {
  const mail = await mailTo(email, count, 'Please verify your email address');
  const code = decodedText(mail).match(/\n(\d{6})\r?\n/)?.[1];
  if (!code) throw new Error(`no code in the verification mail:\n${mail.raw}`);
  return code;
}

async function openFromAccountMenu(page: Page, item: 'Members' | 'Audit log', path: string) {
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: item }).click();
  await page.waitForURL(`${stack.consoleUrl}${path}`);
}

async function chooseOption(page: Page, combobox: string, option: string) {
  await page.getByRole('combobox', { name: combobox, exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

describe('teams in Chromium, with the mail caught by a real SMTP server', () => {
  const stamp = Date.now();
  const ownerEmail = `ada.owner.${stamp}@example.com`;
  const inviteeEmail = `grace.dev.${stamp}@example.com`;
  const organizationName = "Ada Owner's organisation";
  const keyName = 'Shared storefront';

  it(
    'an owner invites a developer, who signs up through the mailed link and sees the shared keys; as billing, Add credits instead; the audit log names who did each',
    { timeout: 240_000 },
    async () => {
      // The owner, signed up and verified with the code identity mailed, and a key for everyone in the organisation.
      const { page: owner } = await newPage();
      await signUp(owner.context(), ownerEmail, { identityUrl: stack.identityUrl, verificationCode: (email) => verificationCode(email, 1) });
      const created = await owner.request.post(`${stack.apiUrl}/bff/publishable-keys`, {
        headers: { origin: stack.consoleUrl },
        data: { name: keyName, budget: 10, budgetType: 'monthly', allowedOrigins: ['https://shop.example.com'] },
      });
      expect(created.status()).toBe(201);

      // Members, from the avatar menu: invite the address as a developer.
      await owner.goto(`${stack.consoleUrl}/dashboard`);
      await owner.getByRole('banner').getByText(organizationName).waitFor();
      await openFromAccountMenu(owner, 'Members', '/members');
      await owner.getByRole('textbox', { name: 'E-mail' }).fill(inviteeEmail);
      await chooseOption(owner, 'Role', 'Developer');
      await owner.getByRole('button', { name: 'Invite' }).click();
      await owner.getByText(`Invitation sent to ${inviteeEmail}`).waitFor();
      const pending = owner.getByRole('table', { name: 'Pending invitations' }).getByRole('row').filter({ hasText: inviteeEmail });
      await pending.getByText('Developer').waitFor();
      const violations: Record<string, string[]> = { membersWithInvitation: await seriousViolations(owner) };

      // The mail carries the console's link to the invitation.
      const invitation = await mailTo(inviteeEmail, 1, `${ownerEmail} invited you to join ${organizationName} on Meterway as a developer`);
      const link = decodedText(invitation).match(new RegExp(`${stack.consoleUrl}/invitations/[A-Za-z0-9._-]+`))?.[0];
      if (!link) throw new Error(`no invitation link in the mail:\n${invitation.raw}`);

      // The invitee, in a browser of their own: the link, Sign up, the mailed code, and the tab comes back to the invitation.
      const { page: invitee } = await newPage();
      await invitee.goto(link);
      await invitee.getByText('Join an organisation on Meterway').waitFor();
      await invitee.getByRole('link', { name: 'Sign up' }).click();
      await invitee.waitForURL(`${stack.consoleUrl}/signup`);
      await invitee.getByRole('textbox', { name: 'Email' }).fill(inviteeEmail);
      await invitee.getByLabel('Password', { exact: true }).fill('a long passphrase for the invitee');
      await invitee.getByRole('checkbox').check();
      await invitee.getByRole('button', { name: 'Sign up' }).click();
      await invitee.waitForURL(new RegExp(`^${stack.consoleUrl}/verify-email\\?flowId=`));
      await invitee.getByRole('textbox', { name: 'Verification code' }).fill(await verificationCode(inviteeEmail, 2));
      await invitee.getByRole('button', { name: 'Verify' }).click();
      await invitee.getByText(`You joined ${organizationName}`).waitFor({ timeout: 20_000 });
      await invitee.waitForURL(`${stack.consoleUrl}/dashboard`);
      expect(await invitee.evaluate("sessionStorage.getItem('meterway.pendingInvitation')")).toBeNull();

      // A developer of the owner's organisation: its name in the top bar, the shared key, no Add credits.
      const banner = invitee.getByRole('banner');
      await banner.getByText(organizationName).waitFor();
      expect(await banner.getByText(inviteeEmail).isVisible()).toBe(true);
      await invitee.getByRole('button', { name: `Edit key ${keyName}`, exact: true }).waitFor();
      expect(await invitee.getByRole('link', { name: 'Add credits' }).count()).toBe(0);

      // The owner sees the member who joined and makes them billing.
      await owner.reload();
      const roleOfInvitee = `Role of ${inviteeEmail}`;
      await owner.getByRole('combobox', { name: roleOfInvitee, exact: true }).waitFor();
      expect(await owner.getByRole('combobox', { name: roleOfInvitee, exact: true }).inputValue()).toBe('Developer');
      await owner.getByRole('table', { name: 'Pending invitations' }).getByText('No pending invitations').waitFor();
      await chooseOption(owner, roleOfInvitee, 'Billing');
      await owner.getByText(`${inviteeEmail} is now Billing`).waitFor();
      violations.membersWithMember = await seriousViolations(owner);

      // Billing, once the dashboard is loaded again: Add credits, and no keys.
      await invitee.reload();
      await invitee.getByRole('link', { name: 'Add credits' }).waitFor();
      expect(await invitee.getByRole('heading', { name: 'Publishable keys' }).count()).toBe(0);
      expect(await invitee.getByRole('button', { name: `Edit key ${keyName}`, exact: true }).count()).toBe(0);

      // The audit log: the invitation and the role change by the owner, the join by the invitee.
      await openFromAccountMenu(owner, 'Audit log', '/audit-log');
      const log = owner.getByRole('table', { name: 'Audit log' });
      const entry = async (action: string) => {
        const row = log.getByRole('row').filter({ hasText: action });
        await row.waitFor();
        // When, actor, action, target, changes.
        return (await row.getByRole('cell').allTextContents()).slice(1);
      };
      expect(await entry('Member invited')).toEqual([ownerEmail, 'Member invited', inviteeEmail, 'role: developer']);
      expect(await entry('Member joined')).toEqual([inviteeEmail, 'Member joined', inviteeEmail, 'role: developer']);
      expect(await entry('Member role changed')).toEqual([ownerEmail, 'Member role changed', inviteeEmail, 'role: developer → billing']);
      violations.auditLog = await seriousViolations(owner);

      expect(violations).toEqual({ membersWithInvitation: [], membersWithMember: [], auditLog: [] });
    },
  );
});
