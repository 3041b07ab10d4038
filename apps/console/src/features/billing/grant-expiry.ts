import { lastGrantDayOf } from '@meterway/contracts';

const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/**
 * The last day a promotional grant can be used, in the browser's language: a grant given "until
 * 2026-12-31" expires at 00:00 UTC on 2027-01-01, and reads "Dec 31, 2026" (a UTC day, as the
 * operator chose it, whatever the browser's time zone).
 */
export const formatGrantLastDay = (expiresAt: string): string => utcDay.format(new Date(`${lastGrantDayOf(expiresAt)}T00:00:00.000Z`));
