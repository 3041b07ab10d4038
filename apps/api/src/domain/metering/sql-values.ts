// Values for the metering functions' parameters, written so node-postgres and PGlite read them alike.

/** A Postgres array literal of uuids or integers (nothing here needs quoting), for a `::type[]` cast. */
export const pgArray = (values: readonly (string | bigint | number)[]): string => `{${values.join(',')}}`;

/** A Postgres array literal of any strings, each quoted, for a `::text[]` cast. */
export const pgTextArray = (values: readonly string[]): string => `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

/** The SQLSTATE and message of a database error, also when the ORM wrapped it. */
export function sqlErrorOf(error: unknown): { code?: string; message?: string } {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: string; cause?: unknown };
    if (typeof code === 'string') return { code, message };
    current = cause;
  }
  return {};
}

/** The rows of `db.execute`: node-postgres and PGlite both answer `{ rows }`. */
export const rowsOf = <Row>(result: unknown): Row[] => (result as { rows: Row[] }).rows;
