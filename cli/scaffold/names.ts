/**
 * The names a scaffold derives from the one the user gives: a lower-case,
 * hyphenated name is safe as a label, a channel name, a URN segment, a file
 * name and (PascalCased) an XML element name all at once.
 *
 * @module
 */
import { UsageError } from "../command.ts";

/** What a scaffold name may be. */
export const SCAFFOLD_NAME = /^(?=.{1,40}$)[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/** Refuses a name that cannot serve as label, channel, URN segment and file name. */
export function checkScaffoldName(name: string, what: string): string {
  if (!SCAFFOLD_NAME.test(name)) {
    throw new UsageError(
      `${what} '${name}' must be lower-case letters and digits in hyphen-separated words, ` +
        "starting with a letter, at most 40 characters (e.g. orders or order-intake)",
    );
  }
  return name;
}

/** `order-intake` → `OrderIntake`. */
export function pascalCase(name: string): string {
  return name.split("-").map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

/** `order-intake` → `ORDER_INTAKE`, for environment variable names. */
export function envCase(name: string): string {
  return name.toUpperCase().replaceAll("-", "_");
}
