import { type AutoTopUp, type AutoTopUpInput, autoTopUpInputSchema } from '@meterway/contracts';

export type AutoTopUpFormValues = {
  enabled: boolean;
  /** NumberInput gives '' while a field is empty. */
  thresholdAmount: number | string;
  topUpAmount: number | string;
  monthlyCapAmount: number | string;
};

type AmountField = 'thresholdAmount' | 'topUpAmount' | 'monthlyCapAmount';

/** Shown when auto top-up is turned on without a saved card, which the api refuses (409). */
export const cardNeededMessage = 'Save a card first: auto top-up charges a saved card.';

export const autoTopUpFormValuesOf = ({ enabled, thresholdAmount, topUpAmount, monthlyCapAmount }: AutoTopUp): AutoTopUpFormValues => ({
  enabled,
  thresholdAmount,
  topUpAmount,
  monthlyCapAmount,
});

const amountOf = (value: number | string) => (typeof value === 'number' ? value : Number.NaN);

/** The PUT body; an empty amount becomes NaN, which the contract refuses as required. */
export const autoTopUpInputOf = (values: AutoTopUpFormValues): AutoTopUpInput => ({
  enabled: values.enabled,
  thresholdAmount: amountOf(values.thresholdAmount),
  topUpAmount: amountOf(values.topUpAmount),
  monthlyCapAmount: amountOf(values.monthlyCapAmount),
});

/** The api's own contract decides, so the form shows the messages the api would answer; turning on needs a card. */
export function validateAutoTopUpForm(values: AutoTopUpFormValues, hasCard: boolean): Partial<Record<keyof AutoTopUpFormValues, string>> {
  const errors: Partial<Record<keyof AutoTopUpFormValues, string>> = {};
  if (values.enabled && !hasCard) errors.enabled = cardNeededMessage;
  const result = autoTopUpInputSchema.safeParse(autoTopUpInputOf(values));
  if (result.success) return errors;
  for (const issue of result.error.issues) {
    const field = issue.path[0] as AmountField;
    errors[field] ??= issue.message;
  }
  return errors;
}
