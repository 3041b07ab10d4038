import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Prices have at most 3 decimals per 1M tokens, so each token costs a whole number of nano-dollars. */
const price = z
  .number()
  .min(0)
  .refine((value) => Number.isInteger(Math.round(value * 1000 * 1e6) / 1e6), 'at most 3 decimals');

const tokens = z.number().int().min(1).max(10_000_000);

const modelSchema = z
  .object({
    input: price,
    output: price,
    /** Input the provider reports as cached (`prompt_tokens_details.cached_tokens`); the input price when absent. */
    cachedInput: price.optional(),
    /** The model's own output limit: a call's limit is capped to it, and a call naming none is reserved for at most this. */
    maxOutputTokens: tokens,
    /** Image parts are accepted only when priced: the tokens one image costs at most, per detail level (`auto` is `high`). */
    images: z.object({ low: tokens, high: tokens }).optional(),
  })
  .refine((model) => model.cachedInput === undefined || model.cachedInput <= model.input, { message: 'cachedInput above input', path: ['cachedInput'] });

const pricingFileSchema = z.object({
  version: z.string().min(1),
  currency: z.literal('USD'),
  unit: z.literal('per 1M tokens'),
  /** Added on top of the provider's price, e.g. 0.1 for 10 %. */
  margin: z.number().min(0).max(10).default(0),
  models: z.record(z.string().min(1).max(100), modelSchema).refine((models) => Object.keys(models).length > 0, 'at least one model'),
});

export type ModelPrice = {
  id: string;
  inputPerMillion: number;
  /** The list's cached-input price; null when the model has none (cached input is then charged as input). */
  cachedInputPerMillion: number | null;
  outputPerMillion: number;
  inputNanosPerToken: bigint;
  cachedInputNanosPerToken: bigint;
  outputNanosPerToken: bigint;
  maxOutputTokens: number;
  imageTokens?: { low: number; high: number };
};
export type Pricing = { version: string; models: Map<string, ModelPrice> };

/** USD per 1M tokens → nano-dollars per token (× 1e9 / 1e6), with the margin, rounded up. */
const perToken = (usdPerMillion: number, margin: number) => BigInt(Math.ceil(usdPerMillion * 1000 * (1 + margin) - 1e-9));

/** Loads and validates the pricing file at boot; a bad file stops the api with the reason. */
export function loadPricing(file: string): Pricing {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`The pricing file ${file} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  const parsed = pricingFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`The pricing file ${file} is invalid: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  }
  const { version, margin, models } = parsed.data;
  return {
    version,
    models: new Map(
      Object.entries(models).map(([id, model]) => [
        id,
        {
          id,
          inputPerMillion: model.input,
          cachedInputPerMillion: model.cachedInput ?? null,
          outputPerMillion: model.output,
          inputNanosPerToken: perToken(model.input, margin),
          cachedInputNanosPerToken: perToken(model.cachedInput ?? model.input, margin),
          outputNanosPerToken: perToken(model.output, margin),
          maxOutputTokens: model.maxOutputTokens,
          ...(model.images ? { imageTokens: model.images } : {}),
        },
      ]),
    ),
  };
}

/** Nano-dollars per token → USD per 1M tokens. */
const perMillion = (nanosPerToken: bigint) => Number(nanosPerToken) / 1000;

/**
 * The models as customers see them: dollars per 1M tokens as charged (with the margin; cached input
 * null when the model has no cached-input price), each model's output limit and whether it takes images.
 */
export const pricedModelsOf = (pricing: Pricing) =>
  [...pricing.models.values()].map((model) => ({
    id: model.id,
    inputPerMillion: perMillion(model.inputNanosPerToken),
    cachedInputPerMillion: model.cachedInputPerMillion === null ? null : perMillion(model.cachedInputNanosPerToken),
    outputPerMillion: perMillion(model.outputNanosPerToken),
    maxOutputTokens: model.maxOutputTokens,
    acceptsImages: model.imageTokens !== undefined,
  }));
