/**
 * The built-in content redactors: `pci` (card numbers, verification codes,
 * track data) and `pii` (e-mail, telephone, IBAN). Importing this module
 * registers them with the engine's redactor registry.
 *
 * @module
 */
import { redactors } from "../../engine/core/redactor.ts";
import { pciRedactor } from "./pci.ts";
import { piiRedactor } from "./pii.ts";

for (const redactor of [pciRedactor, piiRedactor]) {
  if (!redactors.has(redactor.name)) redactors.register(redactor);
}

export { pciRedactor, piiRedactor };
