/**
 * Deno's refusals of what a process's permissions leave out, read back
 * from their message (`Requires net access to "127.0.0.1:5432", run again
 * with the --allow-net flag`), so a diagnostic can name the permission and
 * the target, and the build option that grants it.
 *
 * @module
 */

/** A permission a refusal names. */
export interface Refusal {
  /** `net`, `read`, `write`, `env`, … */
  readonly permission: string;
  /** What was asked for: a host and port, a path, a variable. */
  readonly target: string;
}

const REFUSAL = /Requires (\w+) access to "?([^",]*)"?/;

/** The permission and target `message` refuses, if it is Deno's refusal. */
export function refusalIn(message: string): Refusal | undefined {
  const found = REFUSAL.exec(message);
  return found === null ? undefined : { permission: found[1], target: found[2] };
}

/** What to tell an operator about a refusal: which option of `deno task install|compile` grants it. */
export function refusalHint(refusal: Refusal): string {
  const option = refusal.permission === "write" || refusal.permission === "read" ||
      refusal.permission === "net" || refusal.permission === "env"
    ? ` (install or compile it with --${refusal.permission} ${refusal.target})`
    : "";
  return `this build has no ${refusal.permission} access to ${refusal.target}${option}; ` +
    `see docs/install.md, "Flavours and permissions"`;
}
