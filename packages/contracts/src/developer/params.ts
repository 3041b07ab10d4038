import { z } from 'zod';
import { publishableKeyParamsSchema } from '../bff/publishable-keys.js';

/** PUT and DELETE /v1/organization/publishable-keys/{publishableKeyId}: the BFF's rule, described for the OpenAPI document. */
export const organizationKeyParamsSchema = z.object({
  publishableKeyId: publishableKeyParamsSchema.shape.publishableKeyId.describe(
    "The publishable key's id, as GET /v1/organization/publishable-keys lists it. Another organisation's key answers 404, like one that never existed.",
  ),
});
