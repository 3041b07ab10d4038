import {
  defaultPerClientLimits,
  isAllowedOrigin,
  type PublishableKey,
  type PublishableKeyInput,
  type SecretKey,
  publishableKeyInputSchema,
  validationMessages,
} from '@meterway/contracts';
import { randomId } from '@mantine/hooks';
import { z } from 'zod';

/** Spec §3 and §9: a new key gets a $10 monthly budget and allows localhost. */
export const defaultKeyBudget = 10;
export const defaultAllowedOrigin = 'localhost';

/** `key` only keeps React's rows stable while domains are added and removed. */
export type AllowedDomain = { key: string; value: string };

export type KeyFormValues = {
  name: string;
  /** NumberInput gives '' while the field is empty. */
  budget: number | string;
  allowedDomains: AllowedDomain[];
  /** Limits for a copied key (issue #18). None chosen: every priced model. */
  allowedModels: string[];
  /** '' (empty): the model's own maximum. */
  maxOutputTokensPerCall: number | string;
  /** Per visitor address; '' (empty): no cap. */
  requestsPerMinute: number | string;
  /** Dollars per visitor address per UTC day; '' (empty): no cap. */
  spendPerDay: number | string;
  /** Per end user: requests per minute, dollars per UTC day and calendar month; '' (empty): no cap. */
  perEndUserLimits: { requestsPerMinute: number | string; spendPerDay: number | string; spendPerMonth: number | string };
  /** The sign-in provider whose tokens name the end users; its fields are kept, but not sent, while `required` is off. */
  endUserTokens: { required: boolean; issuer: string; audience: string; jwksUrl: string };
  /** Seconds an answer is kept for the same request again (issue #24); '' (empty): no cache. */
  responseCacheSeconds: number | string;
  /** Whether a cached answer answers every end user, not only the one who asked (issue #52). */
  responseCacheShared: boolean;
};

export const allowedDomain = (value = ''): AllowedDomain => ({ key: randomId(), value });

/** The contract's rule for one entry (an http(s) origin without a path, or localhost); blank entries do not count. */
export const isAcceptedDomain = (value: string): boolean => value.trim() === '' || isAllowedOrigin(value.trim());

/** An empty NumberInput ('') is null, no limit; a string it could not make a number of becomes NaN, which the contract refuses. */
export const limitOf = (value: number | string): number | null => (value === '' ? null : Number(value));

/** No model chosen is null: every priced model. */
const modelsOf = (models: string[]): string[] | null => (models.length > 0 ? models : null);

const controls = publishableKeyInputSchema.shape;

/** The api's own rule for a field decides, so the form shows the message the api would answer. */
const byContract =
  <Value>(rule: z.ZodType, inputOf: (value: Value) => unknown) =>
  (value: Value, context: z.RefinementCtx<Value>) => {
    const result = rule.safeParse(inputOf(value));
    if (!result.success) context.addIssue({ code: 'custom', message: result.error.issues[0]?.message ?? validationMessages.required });
  };

const numberInput = z.union([z.number(), z.string()]);

type EndUserTokenValues = KeyFormValues['endUserTokens'];

const tokenSettingsOf = ({ issuer, audience, jwksUrl }: EndUserTokenValues) => ({ issuer: issuer.trim(), audience: audience.trim(), jwksUrl: jwksUrl.trim() });

/** The end-user limits, each by the contract's rule for it. */
const endUserLimit = (field: 'requestsPerMinute' | 'spendPerDay' | 'spendPerMonth') =>
  numberInput.superRefine(byContract(controls.perEndUserLimits, (value: number | string) => ({ [field]: limitOf(value) })));

/** Only while required: the contract's message for each setting, under its own field. */
const endUserTokens = z
  .object({ required: z.boolean(), issuer: z.string(), audience: z.string(), jwksUrl: z.string() })
  .superRefine((tokens: EndUserTokenValues, context) => {
    if (!tokens.required) return;
    const result = controls.endUserTokens.safeParse(tokenSettingsOf(tokens));
    for (const issue of result.error?.issues ?? []) context.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  });

// Every field is judged by the contract's rule for it, so the form refuses what the api would,
// with the api's message (spec §5's texts, from the contracts' validationMessages).
export const keyFormSchema = z.object({
  name: z.string().superRefine(byContract(controls.name, (name: string) => name)),
  /** Spec §5 number field: NumberInput's '' (empty) is not a number, "This field is required"; then "Minimum is N" / "Maximum is N". */
  budget: numberInput.superRefine(byContract(controls.budget, (budget: number | string) => budget)),
  /** One message for the list, e.g. "All items must start with http:// or https://"; the rows at fault are marked by isAcceptedDomain. */
  allowedDomains: z
    .array(z.object({ key: z.string(), value: z.string() }))
    .superRefine(byContract(controls.allowedOrigins, (domains: AllowedDomain[]) => domains.map((domain) => domain.value))),
  allowedModels: z.array(z.string()).superRefine(byContract(controls.allowedModels, modelsOf)),
  maxOutputTokensPerCall: numberInput.superRefine(byContract(controls.maxOutputTokensPerCall, limitOf)),
  requestsPerMinute: numberInput.superRefine(byContract(controls.perClientLimits, (value: number | string) => ({ requestsPerMinute: limitOf(value) }))),
  spendPerDay: numberInput.superRefine(byContract(controls.perClientLimits, (value: number | string) => ({ spendPerDay: limitOf(value) }))),
  perEndUserLimits: z.object({
    requestsPerMinute: endUserLimit('requestsPerMinute'),
    spendPerDay: endUserLimit('spendPerDay'),
    spendPerMonth: endUserLimit('spendPerMonth'),
  }),
  endUserTokens,
  responseCacheSeconds: numberInput.superRefine(byContract(controls.responseCacheSeconds, limitOf)),
  responseCacheShared: z.boolean(),
});

export const newKeyFormValues = (): KeyFormValues => ({
  name: '',
  budget: defaultKeyBudget,
  allowedDomains: [allowedDomain(defaultAllowedOrigin)],
  allowedModels: [],
  maxOutputTokensPerCall: '',
  requestsPerMinute: defaultPerClientLimits.requestsPerMinute,
  spendPerDay: defaultPerClientLimits.spendPerDay,
  perEndUserLimits: { requestsPerMinute: '', spendPerDay: '', spendPerMonth: '' },
  endUserTokens: { required: false, issuer: '', audience: '', jwksUrl: '' },
  responseCacheSeconds: '',
  responseCacheShared: false,
});

/** An existing key's values; a secret key has no allowed domains (issue #23). */
export const keyFormValuesOf = (key: PublishableKey | SecretKey): KeyFormValues => ({
  name: key.name,
  budget: key.spendLimitAmount,
  allowedDomains: 'allowedOrigins' in key ? key.allowedOrigins.map((origin) => allowedDomain(origin)) : [],
  allowedModels: key.allowedModels ?? [],
  maxOutputTokensPerCall: key.maxOutputTokensPerCall ?? '',
  requestsPerMinute: key.perClientLimits.requestsPerMinute ?? '',
  spendPerDay: key.perClientLimits.spendPerDay ?? '',
  perEndUserLimits: {
    requestsPerMinute: key.perEndUserLimits.requestsPerMinute ?? '',
    spendPerDay: key.perEndUserLimits.spendPerDay ?? '',
    spendPerMonth: key.perEndUserLimits.spendPerMonth ?? '',
  },
  endUserTokens: { required: key.endUserTokens !== null, issuer: '', audience: '', jwksUrl: '', ...key.endUserTokens },
  responseCacheSeconds: key.responseCacheSeconds ?? '',
  responseCacheShared: key.responseCacheShared,
});

/**
 * The POST and PUT body (spec §7); call with values the schema accepted. The limits, the
 * end-user tokens and the response cache are always sent, null when empty or off: on PUT an absent
 * one would stay as it was, so clearing a field must say so.
 */
export const keyInputOf = (values: KeyFormValues): PublishableKeyInput => ({
  name: values.name.trim(),
  budget: Number(values.budget),
  budgetType: 'monthly',
  allowedOrigins: values.allowedDomains.map((domain) => domain.value.trim()).filter(Boolean),
  allowedModels: modelsOf(values.allowedModels),
  maxOutputTokensPerCall: limitOf(values.maxOutputTokensPerCall),
  perClientLimits: { requestsPerMinute: limitOf(values.requestsPerMinute), spendPerDay: limitOf(values.spendPerDay) },
  perEndUserLimits: {
    requestsPerMinute: limitOf(values.perEndUserLimits.requestsPerMinute),
    spendPerDay: limitOf(values.perEndUserLimits.spendPerDay),
    spendPerMonth: limitOf(values.perEndUserLimits.spendPerMonth),
  },
  endUserTokens: values.endUserTokens.required ? tokenSettingsOf(values.endUserTokens) : null,
  responseCacheSeconds: limitOf(values.responseCacheSeconds),
  responseCacheShared: values.responseCacheShared,
});
