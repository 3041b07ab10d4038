import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestApp } from '../../testing/setup-test-app.js';

const t = setupTestApp({}, { identity: true });

let userA = '';
let userB = '';
beforeAll(async () => {
  userA = (await t.users.signUp()).cookie;
  userB = (await t.users.signUp()).cookie;
}, 60_000);

const get = (cookie: string) => t.app.inject({ method: 'GET', url: '/bff/alert-settings', headers: { cookie } });
const put = (payload: unknown, cookie = userA) => t.app.inject({ method: 'PUT', url: '/bff/alert-settings', payload: payload as object, headers: { cookie } });

describe('/bff/alert-settings', () => {
  it('starts at $5 and 50, 80 and 100 % of each key budget', async () => {
    const response = await get(userB);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ lowBalance: 5, keyBudgetPercents: [50, 80, 100] });
  });

  it("saves the organisation's thresholds, in ascending order, without touching another organisation's", async () => {
    const saved = await put({ lowBalance: 12.5, keyBudgetPercents: [90, 25] });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toEqual({ lowBalance: 12.5, keyBudgetPercents: [25, 90] });
    expect((await get(userA)).json()).toEqual({ lowBalance: 12.5, keyBudgetPercents: [25, 90] });
    expect((await get(userB)).json()).toEqual({ lowBalance: 5, keyBudgetPercents: [50, 80, 100] });

    expect((await put({ lowBalance: 0, keyBudgetPercents: [] }, userB)).statusCode).toBe(200);
    expect((await get(userB)).json()).toEqual({ lowBalance: 0, keyBudgetPercents: [] });
    expect((await get(userA)).json()).toEqual({ lowBalance: 12.5, keyBudgetPercents: [25, 90] });
  });

  it.each([
    ['a negative threshold', { lowBalance: -1, keyBudgetPercents: [] }, 'lowBalance', 'Minimum is 0'],
    ['a threshold above $10,000', { lowBalance: 10_001, keyBudgetPercents: [] }, 'lowBalance', 'Maximum is 10000'],
    ['a threshold that is not a number', { lowBalance: 'five', keyBudgetPercents: [] }, 'lowBalance', 'This field is required'],
    ['no percentages', { lowBalance: 5 }, 'keyBudgetPercents', 'This field is required'],
    ['0 %', { lowBalance: 5, keyBudgetPercents: [0] }, 'keyBudgetPercents.0', 'Each percentage must be a whole number from 1 to 100'],
    ['101 %', { lowBalance: 5, keyBudgetPercents: [50, 101] }, 'keyBudgetPercents.1', 'Each percentage must be a whole number from 1 to 100'],
    ['a fraction of a percent', { lowBalance: 5, keyBudgetPercents: [50.5] }, 'keyBudgetPercents.0', 'Each percentage must be a whole number from 1 to 100'],
    ['a repeated percentage', { lowBalance: 5, keyBudgetPercents: [50, 50] }, 'keyBudgetPercents', 'Each percentage may appear only once'],
    ['eleven percentages', { lowBalance: 5, keyBudgetPercents: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }, 'keyBudgetPercents', 'At most 10 percentages'],
  ])('refuses %s with a 400 naming the field, and keeps the settings', async (_case, payload, field, message) => {
    const response = await put(payload);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 400, code: 'BadRequest', errors: [{ field, message }] });
    expect((await get(userA)).json()).toEqual({ lowBalance: 12.5, keyBudgetPercents: [25, 90] });
  });

  it('answers 401 without a session', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/bff/alert-settings' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'PUT', url: '/bff/alert-settings', payload: { lowBalance: 1, keyBudgetPercents: [] } })).statusCode).toBe(401);
  });
});
