import { packagePath } from '@meterway/service';
import { costOf } from '../domain/metering/settlement.js';
import { loadPricing, type ModelPrice } from '../gateway/pricing.js';

/** The price list the app loads when PRICING_FILE is unset (apps/api/pricing.json), read by the app's own loader. */
export const priceList = loadPricing(packagePath(import.meta.url, 'pricing.json'));

/** One model's prices from the list: tests take their expected amounts from here, never from numbers of their own. */
export function listedPrice(model: string): ModelPrice {
  const price = priceList.models.get(model);
  if (!price) throw new Error(`${model} is not in the price list (apps/api/pricing.json)`);
  return price;
}

/** What the api charges for these tokens of `model`: the price list through the api's one pricing function (costOf). */
export function listedCost(model: string, usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number }) {
  return costOf({ cachedInputTokens: 0, ...usage, prices: listedPrice(model) });
}
