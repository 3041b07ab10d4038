import { type AlertSettings, alertSettingsSchema } from '@meterway/contracts';

export type AlertFormValues = {
  /** NumberInput gives '' while the field is empty. */
  lowBalance: number | string;
  /** TagsInput's entries, as typed ("80" or "80%"). */
  keyBudgetPercents: string[];
};

export const alertFormValuesOf = (settings: AlertSettings): AlertFormValues => ({
  lowBalance: settings.lowBalance,
  keyBudgetPercents: settings.keyBudgetPercents.map(String),
});

/** The PUT body; a blank or non-numeric entry becomes NaN, which the contract refuses. */
export const alertSettingsOf = (values: AlertFormValues): AlertSettings => ({
  lowBalance: typeof values.lowBalance === 'number' ? values.lowBalance : Number.NaN,
  keyBudgetPercents: values.keyBudgetPercents.map((entry) => (/^\s*\d+(\.\d+)?\s*%?\s*$/.test(entry) ? Number.parseFloat(entry) : Number.NaN)),
});

/** The api's own contract decides, so the form shows the messages the api would answer. */
export function validateAlertForm(values: AlertFormValues): Partial<Record<keyof AlertFormValues, string>> {
  const result = alertSettingsSchema.safeParse(alertSettingsOf(values));
  if (result.success) return {};
  const errors: Partial<Record<keyof AlertFormValues, string>> = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0] as keyof AlertFormValues;
    errors[field] ??= issue.message;
  }
  return errors;
}
