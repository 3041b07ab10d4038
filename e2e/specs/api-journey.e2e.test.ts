import OpenAI from 'openai';
import { describe, expect, inject, it } from 'vitest';
import { identitySession } from '../support/browser-identity.js';

const stack = inject('stack');

/**
 * The money path through the stack as `npm start` runs it: sign up, create a key, top up with the
 * sandbox, call the gateway from an allowed origin with the openai SDK, and see the call billed.
 */
describe('the api journey on the embedded default', () => {
  it('signs up, creates a key, tops up $25, calls the demo model, and sees the row and the balance drop', async () => {
    const person = identitySession(stack.identityUrl);
    await person.signUp(`journey-${Date.now()}@example.com`);
    const bff = (method: string, path: string, body?: unknown) => person.call(method, `${stack.apiUrl}${path}`, body, { origin: stack.consoleUrl });

    const key = await bff('POST', '/bff/publishable-keys', {
      name: 'Web app',
      budget: 10,
      budgetType: 'monthly',
      allowedOrigins: ['https://shop.example.com'],
    });
    expect(key.status).toBe(201);

    const checkout = await bff('POST', '/bff/stripe/checkout-session', { amount: 25 });
    const confirm = await fetch(`${stack.apiUrl}/sandbox/checkout-sessions/${checkout.body.checkoutSessionId}/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientSecret: checkout.body.clientSecret, cardNumber: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' }),
    });
    expect(confirm.status).toBe(202);
    await expect.poll(async () => (await bff('GET', '/bff/me')).body.remainingSpendAmount, { timeout: 10_000 }).toBe(25);

    const client = new OpenAI({ baseURL: `${stack.apiUrl}/v1`, apiKey: key.body.value, maxRetries: 0, defaultHeaders: { origin: 'https://shop.example.com' } });
    const completion = await client.chat.completions.create({ model: 'meterway-demo', messages: [{ role: 'user', content: 'Hello there' }] });
    expect(completion.choices[0]?.message.content).toMatch(/^Meterway demo model here/);
    const refused = await new OpenAI({
      baseURL: `${stack.apiUrl}/v1`,
      apiKey: key.body.value,
      maxRetries: 0,
      defaultHeaders: { origin: 'https://evil.example.net' },
    }).chat.completions
      .create({ model: 'meterway-demo', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((error) => error);
    expect(refused.status).toBe(403);

    // Settlement follows the answer by a moment.
    await expect.poll(async () => (await bff('GET', '/bff/chat-completions')).body.items.length, { timeout: 5_000 }).toBe(1);
    const usage = await bff('GET', '/bff/chat-completions');
    const row = usage.body.items[0];
    expect(row).toMatchObject({
      id: completion.id,
      model: 'meterway-demo',
      inputTokens: completion.usage?.prompt_tokens,
      outputTokens: completion.usage?.completion_tokens,
    });
    expect(row.totalCost).toBeGreaterThan(0);
    const me = (await bff('GET', '/bff/me')).body;
    expect(me.remainingSpendAmount).toBeCloseTo(25 - row.totalCost, 9);
    const keys = (await bff('GET', '/bff/publishable-keys')).body.publishableKeys;
    expect(keys[0].currentPeriodSpendAmount).toBeCloseTo(row.totalCost, 9);
  });
});
