import { z } from 'zod';
import { validationMessages as m } from '../common/messages.js';

/** The highest low-balance threshold, in dollars. */
export const maxLowBalanceAlert = 10_000;
export const maxKeyBudgetPercents = 10;

const percentMessage = 'Each percentage must be a whole number from 1 to 100';

/** GET and PUT /bff/alert-settings: when to e-mail the organisation (0 and an empty list turn an alert off). */
export const alertSettingsSchema = z.object({
  /** Dollars: a mail when the balance falls below this. */
  lowBalance: z.number({ error: m.required }).finite(m.required).min(0, m.min(0)).max(maxLowBalanceAlert, m.max(maxLowBalanceAlert)),
  /** Percentages of each key's monthly budget that send a mail when the key's spend reaches them. */
  keyBudgetPercents: z
    .array(z.number({ error: percentMessage }).int(percentMessage).min(1, percentMessage).max(100, percentMessage), { error: m.required })
    .max(maxKeyBudgetPercents, `At most ${maxKeyBudgetPercents} percentages`)
    .refine((percents) => new Set(percents).size === percents.length, 'Each percentage may appear only once'),
});

export type AlertSettings = z.infer<typeof alertSettingsSchema>;
