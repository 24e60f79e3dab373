/**
 * Many rows in one statement: placeholders for a multi-row `values` list.
 *
 * @module
 */

/**
 * Appends `rows` to `params` and renders them as a `values` list
 * (`($1, $2), ($3, $4)`), so writing several rows of a table takes one
 * statement, and one round trip, instead of one per row.
 */
export function valuesList(params: unknown[], rows: readonly (readonly unknown[])[]): string {
  return rows.map((row) => {
    const first = params.length + 1;
    params.push(...row);
    return `(${row.map((_, i) => `$${first + i}`).join(", ")})`;
  }).join(", ");
}

/**
 * A `from` item for rows sent as one parameter, a JSON array of objects:
 * `json_to_recordset(<placeholder>::json) as <alias> (column type, …)`,
 * each object's members read into the columns of the same names.
 *
 * Unlike {@link valuesList}, the statement text does not depend on the
 * number of rows, so a statement written for a batch of any size is
 * prepared once per connection; and the server parses one JSON text rather
 * than a parameter per value (measured: a row costs the server about what
 * it does as scalar parameters, and less than as one array per column).
 */
export function jsonRecords(
  alias: string,
  columns: Readonly<Record<string, string>>,
  placeholder: string,
): string {
  const list = Object.entries(columns).map(([name, type]) => `${name} ${type}`).join(", ");
  return `json_to_recordset(${placeholder}::json) as ${alias} (${list})`;
}
