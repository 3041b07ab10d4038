import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { demoModel } from '../../gateway/providers/demo-model.js';
import { setupGateway } from '../../testing/gateway-fixture.js';

// A price list of its own with a 10 % margin: /v1/models shows what the caller is charged, not the provider's price.
const pricingFile = join(mkdtempSync(join(tmpdir(), 'meterway-models-')), 'pricing.json');
writeFileSync(
  pricingFile,
  JSON.stringify({
    version: '2031-01-02',
    currency: 'USD',
    unit: 'per 1M tokens',
    margin: 0.1,
    models: {
      'meterway-demo': { input: 0.5, output: 1.5, maxOutputTokens: 4096 },
      'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10, maxOutputTokens: 16384, images: { low: 85, high: 1445 } },
    },
  }),
);

const t = setupGateway(() => demoModel(), { PRICING_FILE: pricingFile });
const client = (key: string) => new OpenAI({ baseURL: `${t.url}/v1`, apiKey: key, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });

/** The SDK's Model type does not know the extension; the object it parsed keeps it. */
type PricedModel = OpenAI.Models.Model & { x_meterway: Record<string, unknown> };

describe('GET /v1/models', () => {
  it('lists each model OpenAI-shaped for the official SDK, with its prices as charged in x_meterway', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const listed = await client(account.value).models.list();
    const models = listed.data as PricedModel[];
    expect(models).toEqual([
      {
        id: 'meterway-demo',
        object: 'model',
        created: 0,
        owned_by: 'meterway',
        x_meterway: { inputPrice: 0.55, cachedInputPrice: null, outputPrice: 1.65, maxOutputTokens: 4096, priceListVersion: '2031-01-02' },
      },
      {
        id: 'gpt-4o',
        object: 'model',
        created: 0,
        owned_by: 'meterway',
        x_meterway: { inputPrice: 2.75, cachedInputPrice: 1.375, outputPrice: 11, maxOutputTokens: 16384, priceListVersion: '2031-01-02' },
      },
    ]);
  });

  it("lists only the key's allowed models, each still priced", async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1, controls: { allowedModels: ['gpt-4o'] } });
    const models = (await client(account.value).models.list()).data as PricedModel[];
    expect(models.map((model) => [model.id, model.x_meterway.inputPrice])).toEqual([['gpt-4o', 2.75]]);
  });
});
