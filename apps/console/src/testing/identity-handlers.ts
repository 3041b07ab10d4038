import loginChooseMethod from '@meterway/contracts/fixtures/identity/login-choose-method.json';
import logoutFlow from '@meterway/contracts/fixtures/identity/logout-flow.json';
import recoveryChooseMethod from '@meterway/contracts/fixtures/identity/recovery-choose-method.json';
import registrationChooseMethod from '@meterway/contracts/fixtures/identity/registration-choose-method.json';
import settingsShowForm from '@meterway/contracts/fixtures/identity/settings-show-form.json';
import verificationChooseMethod from '@meterway/contracts/fixtures/identity/verification-choose-method.json';
import { HttpResponse, http, type JsonBodyType } from 'msw';
import { testRuntimeConfig } from './runtime-config';

/**
 * MSW handlers for the identity service, answering with the fixtures recorded from the real
 * server (packages/contracts/fixtures/identity, each `{status, body}`). Each handler takes the
 * fixture to answer with, so a test states the identity answer it is about.
 */

export type IdentityFixture = { status: number; body: unknown };

const pub = testRuntimeConfig.identityUrl;

/** The answer a fixture records; `status` 204 and friends answer without a body. */
export const answer = ({ status, body }: IdentityFixture) =>
  body === undefined || status === 204 ? new HttpResponse(null, { status }) : HttpResponse.json(body as JsonBodyType, { status });

/** A fixture with different messages: the recorded body with `ui.messages` replaced. */
export function withMessages(fixture: IdentityFixture, messages: { id: number; text: string; type: string }[]): IdentityFixture {
  const body = fixture.body as { ui: Record<string, unknown> };
  return { ...fixture, body: { ...body, ui: { ...body.ui, messages } } };
}

/** A fixture whose node messages have their texts rewritten. */
export function withNodeMessageText(fixture: IdentityFixture, text: string): IdentityFixture {
  const body = fixture.body as { ui: { nodes: { messages: { text: string }[] }[] } };
  const nodes = body.ui.nodes.map((node) => ({ ...node, messages: node.messages.map((message) => ({ ...message, text })) }));
  return { ...fixture, body: { ...body, ui: { ...body.ui, nodes } } };
}

const get = (path: string, fixture: IdentityFixture) => http.get(`${pub}${path}`, () => answer(fixture));
const post = (path: string, fixture: IdentityFixture) => http.post(`${pub}${path}`, () => answer(fixture));

export const identity = {
  createLoginFlow: (fixture: IdentityFixture = loginChooseMethod) => get('/self-service/login/browser', fixture),
  submitLogin: (fixture: IdentityFixture) => post('/self-service/login', fixture),
  createRegistrationFlow: (fixture: IdentityFixture = registrationChooseMethod) => get('/self-service/registration/browser', fixture),
  submitRegistration: (fixture: IdentityFixture) => post('/self-service/registration', fixture),
  createVerificationFlow: (fixture: IdentityFixture = verificationChooseMethod) => get('/self-service/verification/browser', fixture),
  getVerificationFlow: (fixture: IdentityFixture = verificationChooseMethod) => get('/self-service/verification/flows', fixture),
  submitVerification: (fixture: IdentityFixture) => post('/self-service/verification', fixture),
  createRecoveryFlow: (fixture: IdentityFixture = recoveryChooseMethod) => get('/self-service/recovery/browser', fixture),
  getRecoveryFlow: (fixture: IdentityFixture = recoveryChooseMethod) => get('/self-service/recovery/flows', fixture),
  submitRecovery: (fixture: IdentityFixture) => post('/self-service/recovery', fixture),
  createSettingsFlow: (fixture: IdentityFixture = settingsShowForm) => get('/self-service/settings/browser', fixture),
  submitSettings: (fixture: IdentityFixture) => post('/self-service/settings', fixture),
  createLogoutFlow: (fixture: IdentityFixture = logoutFlow) => get('/self-service/logout/browser', fixture),
  submitLogout: (fixture: IdentityFixture = { status: 204, body: undefined }) => get('/self-service/logout', fixture),
  whoami: (fixture: IdentityFixture) => get('/sessions/whoami', fixture),
};
