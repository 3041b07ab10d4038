// CSV as RFC 4180 writes it, made safe to open in a spreadsheet. Hand-written rather than a CSV
// library: the export streams rows as the socket drains and must defuse formulas, in a dozen lines.

/**
 * A spreadsheet runs a cell that starts with one of these as a formula (=HYPERLINK(…), @SUM(…)),
 * so a key name or model chosen by someone else could act in the reader's spreadsheet. OWASP's
 * advice: a leading apostrophe makes it text.
 */
const formulaStart = /^[=+\-@\t\r]/;

/** One field: formula starts defused, then quoted when it holds a quote, a comma or a line break. */
export function csvField(value: string): string {
  const safe = formulaStart.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** One record, CRLF-terminated as RFC 4180 asks. */
export const csvRecord = (fields: readonly string[]): string => `${fields.map(csvField).join(',')}\r\n`;
