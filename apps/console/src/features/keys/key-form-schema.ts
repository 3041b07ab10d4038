import { maxKeyBudget, type PublishableKey, type PublishableKeyInput, validationMessages } from '@meterway/contracts';
import { randomId } from '@mantine/hooks';
import { z } from 'zod/mini';
import { requiredText } from '../../lib/validation';

/** Spec §3 and §9: a new key gets a $10 monthly budget and allows localhost. */
export const defaultKeyBudget = 10;
export const defaultAllowedOrigin = 'localhost';

/** The key name's length after trimming; the api accepts at most 100. */
export const keyNameLength = { min: 3, max: 100 } as const;
/** The budget's range in dollars, the api's own. */
export const keyBudgetRange = { min: 0, max: maxKeyBudget } as const;

/** `key` only keeps React's rows stable while domains are added and removed. */
export type AllowedDomain = { key: string; value: string };

export type KeyFormValues = {
  name: string;
  /** NumberInput gives '' while the field is empty. */
  budget: number | string;
  allowedDomains: AllowedDomain[];
};

export const allowedDomain = (value = ''): AllowedDomain => ({ key: randomId(), value });

/** Spec §5: an entry is an http(s) address or the literal localhost; blank entries do not count. */
export const isAcceptedDomain = (value: string): boolean => {
  const trimmed = value.trim();
  return trimmed === '' || trimmed === defaultAllowedOrigin || /^https?:\/\//i.test(trimmed);
};

/** Spec §5 number field: a number, then "Minimum is N" / "Maximum is N". */
const budget = z.union([z.number(), z.string()]).check(
  z.superRefine((value, context) => {
    const message =
      typeof value !== 'number' || !Number.isFinite(value)
        ? validationMessages.required
        : value < keyBudgetRange.min
          ? validationMessages.min(keyBudgetRange.min)
          : value > keyBudgetRange.max
            ? validationMessages.max(keyBudgetRange.max)
            : undefined;
    if (message) context.addIssue({ code: 'custom', message });
  }),
);

// The messages are the contracts' (validationMessages), shared with the api's own checks.
export const keyFormSchema = z.object({
  name: requiredText(keyNameLength),
  budget,
  /** One message for the list: "All items must start with http:// or https://". */
  allowedDomains: z
    .array(z.object({ key: z.string(), value: z.string() }))
    .check(z.refine((domains) => domains.every((domain) => isAcceptedDomain(domain.value)), { error: validationMessages.origins })),
});

export const newKeyFormValues = (): KeyFormValues => ({
  name: '',
  budget: defaultKeyBudget,
  allowedDomains: [allowedDomain(defaultAllowedOrigin)],
});

export const keyFormValuesOf = (key: PublishableKey): KeyFormValues => ({
  name: key.name,
  budget: key.spendLimitAmount,
  allowedDomains: key.allowedOrigins.map((origin) => allowedDomain(origin)),
});

/** The POST and PUT body (spec §7); call with values the schema accepted. */
export const keyInputOf = (values: KeyFormValues): PublishableKeyInput => ({
  name: values.name.trim(),
  budget: Number(values.budget),
  budgetType: 'monthly',
  allowedOrigins: values.allowedDomains.map((domain) => domain.value.trim()).filter(Boolean),
});
