import loginSecondFactor from '@meterway/contracts/fixtures/identity/login-second-factor.json';
import settingsShowForm from '@meterway/contracts/fixtures/identity/settings-show-form.json';
import settingsTotpLinked from '@meterway/contracts/fixtures/identity/settings-success-totp-linked.json';
import settingsWeakPassword from '@meterway/contracts/fixtures/identity/settings-weak-password.json';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { server } from '../testing/msw-server';
import { renderPage } from '../testing/render';

/**
 * The identity service records its real answers as fixtures in packages/contracts (asserted by its
 * own tests); rendering them here keeps these pages and the server from drifting apart.
 */
const PUB = 'http://localhost:4000';
const card = (group: string) => screen.getByTestId(`ory/screen/settings/group/${group}`);

function serveSettings(recorded: { body: object }) {
  server.use(http.get(`${PUB}/self-service/settings/flows`, () => HttpResponse.json(recorded.body)));
}

describe("the identity service's recorded answers", () => {
  it('settings, show_form: the three cards with the enrolment QR code', async () => {
    serveSettings(settingsShowForm);
    renderPage(`/ui/settings?flow=${settingsShowForm.body.id}`);

    expect(await within(await screen.findByTestId('ory/screen/settings/group/profile')).findByLabelText('E-Mail')).toHaveValue('ada@example.com');
    expect(within(card('password')).getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(within(card('totp')).getByRole('img', { name: 'Authenticator app QR code' })).toBeInTheDocument();
    expect(within(card('totp')).getByLabelText('Verify code')).toBeInTheDocument();
  });

  it('settings, weak password: the policy message under the field', async () => {
    serveSettings(settingsWeakPassword);
    renderPage(`/ui/settings?flow=${settingsWeakPassword.body.id}`);

    const field = within(await screen.findByTestId('ory/screen/settings/group/password')).getByLabelText('Password');
    expect(field).toHaveAccessibleDescription('The password must be at least 8 characters long, but got 5.');
  });

  it('settings, success after linking: the saved message and the unlink button', async () => {
    serveSettings(settingsTotpLinked);
    renderPage(`/ui/settings?flow=${settingsTotpLinked.body.id}`);

    expect(await screen.findByRole('alert')).toHaveTextContent('Your changes have been saved!');
    expect(within(card('totp')).getByRole('button', { name: 'Unlink TOTP Authenticator App' })).toBeInTheDocument();
  });

  it('login, second factor', async () => {
    server.use(http.get(`${PUB}/self-service/login/flows`, () => HttpResponse.json(loginSecondFactor.body)));
    renderPage(`/ui/login?flow=${loginSecondFactor.body.id}`);

    expect(await screen.findByRole('heading', { name: 'Two-factor authentication' })).toBeInTheDocument();
    expect(screen.getByLabelText('Authentication code')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Use Authenticator' })).toBeInTheDocument();
  });
});
