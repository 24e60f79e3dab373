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
