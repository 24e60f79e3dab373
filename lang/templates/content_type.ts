/**
 * Content types: what a template file says it produces, and which escaping
 * and output check a content type calls for.
 *
 * @module
 */

/**
 * How values are escaped when inserted into a body, and how the finished
 * body is checked: `xml` (XML and HTML: markup characters escaped; XML bodies
 * must be well-formed), `json` (values escaped as JSON string content; the
 * body must parse as JSON) or `text` (inserted as they are).
 */
export type Family = "xml" | "json" | "text";

/** The type a Handlebars template without a more specific one produces. */
export const DEFAULT_TEXT_TYPE = "text/plain; charset=utf-8";

const BY_EXTENSION: Readonly<Record<string, string>> = {
  json: "application/json",
  xml: "application/xml",
  html: "text/html; charset=utf-8",
  htm: "text/html; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  text: "text/plain; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  yaml: "application/yaml",
  yml: "application/yaml",
};

/**
 * The content type a file name implies through an inner extension before the
 * template extension: `reply.json.hbs` → `application/json`,
 * `invoice.xml.hbs` → `application/xml`; undefined when there is none.
 */
export function contentTypeFromName(name: string): string | undefined {
  const file = name.slice(name.lastIndexOf("/") + 1);
  const parts = file.split(".");
  if (parts.length < 3) return undefined;
  return BY_EXTENSION[parts[parts.length - 2].toLowerCase()];
}

/** The media type without parameters, lower-cased: `Application/JSON; charset=x` → `application/json`. */
export function mediaType(contentType: string): string {
  return contentType.split(";")[0].trim().toLowerCase();
}

/** Which escaping and output check `contentType` calls for. */
export function familyOf(contentType: string): Family {
  const type = mediaType(contentType);
  if (type === "application/json" || type === "text/json" || type.endsWith("+json")) return "json";
  if (isXml(type) || type === "text/html") return "xml";
  return "text";
}

/** True for XML media types (`application/xml`, `text/xml`, `…+xml`), whose bodies must be well-formed. */
export function isXml(type: string): boolean {
  return type === "application/xml" || type === "text/xml" || type.endsWith("+xml");
}

/** The content type an XSLT output method produces when `media-type` is not given. */
export function contentTypeForMethod(method: string | undefined): string {
  switch (method) {
    case "json":
      return "application/json";
    case "html":
    case "xhtml":
      return "text/html; charset=utf-8";
    case "text":
    case "adaptive":
      return "text/plain; charset=utf-8";
    default:
      return "application/xml";
  }
}
