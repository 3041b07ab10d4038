import { AppError } from '../../errors/app-error.js';
import type { Pricing } from '../../gateway/pricing.js';

/** A key of either kind may only be allowed models the gateway prices. */
export function pricedOnly<T extends { allowedModels?: string[] | null | undefined }>(pricing: Pricing, input: T): T {
  const unknown = input.allowedModels?.find((model) => !pricing.models.has(model));
  if (unknown === undefined) return input;
  const message = `The model '${unknown}' is not on the price list`;
  throw new AppError('BadRequest', `allowedModels: ${message}`, { errors: [{ field: 'allowedModels', message }] });
}
