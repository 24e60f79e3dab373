/**
 * The FEEL shape of an XSD element's payload view, for the loader's static
 * path checks: the same keys `_xml_view.ts` produces, lists where the schema
 * lets an element repeat, scalar types from the built-in a simple type
 * derives from. A recursive type is cut with "any" where it recurs.
 *
 * @module
 */
import type { Shape } from "../../engine/bpmn/shape.ts";
import { put } from "./_data.ts";
import { keyLayout } from "./_xml_view.ts";
import { scalarKind, type XsdComplexType, type XsdElement, type XsdType } from "./_xsd_model.ts";

/** The shape of the payload an element of this declaration is viewed as. */
export function elementShape(declaration: XsdElement): Shape {
  return typeShape(declaration.type, new Set());
}

function typeShape(type: XsdType, active: Set<XsdComplexType>): Shape {
  if (type.kind === "simple") return { kind: "scalar", type: scalarKind(type) };
  if (type.any || active.has(type)) return { kind: "any" };
  active.add(type);
  const layout = keyLayout(
    type.particles.map((p) => p.element.name),
    type.attributes.map((a) => a.name),
    type.text !== undefined || type.mixed,
  );
  const fields: Record<string, Shape> = {};
  for (const a of type.attributes) {
    put(fields, layout.attributes.get(a.name)!, { kind: "scalar", type: scalarKind(a.type) });
  }
  for (const p of type.particles) {
    const item = typeShape(p.element.type, active);
    put(fields, p.element.name, p.maxOccurs > 1 ? { kind: "list", item } : item);
  }
  if (layout.text !== undefined) {
    put(fields, layout.text, {
      kind: "scalar",
      type: type.text ? scalarKind(type.text) : "string",
    });
  }
  active.delete(type);
  return type.open ? { kind: "record", fields, open: true } : { kind: "record", fields };
}
