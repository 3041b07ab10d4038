// Values for the metering functions' parameters, written so node-postgres and PGlite read them alike.

/** A Postgres array literal of uuids or integers (nothing here needs quoting), for a `::type[]` cast. */
export const pgArray = (values: readonly (string | bigint | number)[]): string => `{${values.join(',')}}`;

/** The SQLSTATE of a database error, also when the ORM wrapped it. */
export function sqlStateOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    current = cause;
  }
  return undefined;
}

/** The rows of `db.execute`: node-postgres and PGlite both answer `{ rows }`. */
export const rowsOf = <Row>(result: unknown): Row[] => (result as { rows: Row[] }).rows;
