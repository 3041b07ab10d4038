import { z } from 'zod';

/** Page size limit of spec §9: 100, which is also the default. */
export const maxPageSize = 100;

/** The list query of spec §7 (searchString is accepted and ignored, as the spec says). */
export const listQuerySchema = z.object({
  asc: z
    .enum(['true', 'false'], { error: 'asc must be true or false' })
    .optional()
    .transform((value) => value === 'true'),
  nextPageToken: z.string().max(512).optional(),
  previousPageToken: z.string().max(512).optional(),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(maxPageSize, `limit must be at most ${maxPageSize}`)
    .default(maxPageSize),
  searchString: z.string().max(200).optional(),
});

export type ListQuery = z.infer<typeof listQuerySchema>;

export const paginationSchema = z.object({
  nextPageToken: z.string().nullable(),
  previousPageToken: z.string().nullable(),
});

export const pageOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), pagination: paginationSchema });
