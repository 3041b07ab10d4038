import type { AuditAction, AuditChanges } from '@meterway/contracts';

/** "key.blocked_caller" → "Key blocked caller": the action as a few words. */
export function actionLabel(action: AuditAction): string {
  const words = action.replace('.', ' ').replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A recorded value as text: lists joined, nothing as "none". */
export function valueText(value: unknown): string {
  if (value === null || value === undefined || value === '') return 'none';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(valueText).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value as string | number | boolean);
}

/**
 * One line per changed field: "budget: 10 → 25"; a field that had no before (a creation, a
 * reason) shows what it became, "reason: too expensive".
 */
export function changeLines(changes: AuditChanges): string[] {
  return Object.entries(changes).map(([field, { from, to }]) =>
    from === undefined ? `${field}: ${valueText(to)}` : `${field}: ${valueText(from)} → ${valueText(to)}`,
  );
}
