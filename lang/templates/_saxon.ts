/**
 * A typed facade over the documented JavaScript API of SaxonJS 2
 * (`npm:saxon-js`, which ships no types): `SaxonJS.transform()` runs a
 * compiled stylesheet (SEF), `SaxonJS.XPath.evaluate()` builds the XDM
 * values a stylesheet receives, `SaxonJS.getLogLevel()`/`setLogLevel()`
 * keep a render quiet. Stylesheets are compiled by `_compiler.ts`.
 *
 * @module
 */
import SaxonJS from "saxon-js";

/** A compiled stylesheet: the parsed JSON of a Stylesheet Export File, opaque here. */
export type Sef = { readonly __sef?: never } & object;

/** An XDM item as SaxonJS returns it (atomic value, map, array or node), opaque here. */
export type XdmItem = { readonly __xdm?: never } & object;

/** An XDM value: one item, or a sequence of items (the empty sequence is `[]`). */
export type XdmValue = XdmItem | XdmItem[];

/** The XSD atomic types values are passed as. */
export type AtomicType =
  | "string"
  | "boolean"
  | "decimal"
  | "date"
  | "dateTime"
  | "time"
  | "dayTimeDuration"
  | "yearMonthDuration";

/**
 * A value to build in XDM: an atomic value from its type and lexical form,
 * the empty sequence (`null`), an array (its members) or a map with string
 * keys.
 */
export type XdmSource =
  | { readonly type: AtomicType; readonly text: string }
  | null
  | readonly XdmSource[]
  | ReadonlyMap<string, XdmSource>;

interface TransformResult {
  principalResult?: unknown;
  resultDocuments?: Record<string, unknown>;
}

interface SaxonApi {
  getLogLevel(): number;
  setLogLevel(level: number): void;
  transform(options: Record<string, unknown>, execution: "sync"): TransformResult;
  XPath: {
    evaluate(
      expression: string,
      contextItem: null,
      options: { params?: Record<string, unknown>; resultForm: "xdm" },
    ): XdmItem[];
  };
}

const saxon = SaxonJS as unknown as SaxonApi;

/** An error raised by SaxonJS: an XPath/XSLT error code, a message, sometimes a line. */
export interface SaxonError {
  /** The error code, e.g. `XTDE0640` or `Q{…}XPTY0004`. */
  readonly code?: string;
  /** What went wrong. */
  readonly message: string;
  /** A line in the stylesheet module named by `xsltModule`. */
  readonly xsltLineNr?: number | string;
  /** The file name of the module the line belongs to. */
  readonly xsltModule?: string;
}

/** Reads a thrown value as a {@link SaxonError}. */
export function asSaxonError(e: unknown): SaxonError {
  if (typeof e === "object" && e !== null && "message" in e) return e as SaxonError;
  return { message: String(e) };
}

/** How one render starts and what it receives. */
export interface TransformRequest {
  /** The base URI the stylesheet's relative references resolve against. */
  readonly baseUri: string;
  /** Start at this named template (EQName) instead of applying templates to `source`. */
  readonly initialTemplate?: string;
  /** An XML document (text) to apply templates to. */
  readonly source?: string;
  /** Stylesheet parameters by EQName (`Q{}name`). */
  readonly params: Record<string, XdmValue>;
}

/** Thrown when a stylesheet writes secondary result documents, which a render cannot return. */
export class SecondaryResultError extends Error {}

/** Runs a compiled stylesheet with `SaxonJS.transform` and returns its serialized principal result. */
export function transform(sef: Sef, request: TransformRequest): string {
  // SaxonJS logs an XSLT stack trace on some failures; they come back as diagnostics instead.
  const logLevel = saxon.getLogLevel();
  saxon.setLogLevel(0);
  let result: TransformResult;
  try {
    result = run(sef, request);
  } finally {
    saxon.setLogLevel(logLevel);
  }
  const secondary = Object.keys(result.resultDocuments ?? {});
  if (secondary.length > 0) {
    throw new SecondaryResultError(
      `xsl:result-document (${secondary.join(", ")}) is not supported: a template renders one body`,
    );
  }
  return typeof result.principalResult === "string" ? result.principalResult : "";
}

function run(sef: Sef, request: TransformRequest): TransformResult {
  return saxon.transform({
    stylesheetInternal: sef,
    stylesheetBaseURI: request.baseUri,
    stylesheetParams: request.params,
    destination: "serialized",
    // Messages are the stylesheet's business, not the engine's stdout.
    deliverMessage: () => {},
    // Kept in memory instead of written to files; refused below.
    deliverResultDocument: () => ({ destination: "serialized" }),
    ...(request.source === undefined ? {} : { sourceText: request.source }),
    ...(request.initialTemplate === undefined ? {} : { initialTemplate: request.initialTemplate }),
  }, "sync");
}

/** The XDM value of member `$i`: cast from `$texts[$i]` as `$types[$i]`, an item of `$items`, or empty. */
const MEMBER = `let $type := $types[$i], $text := $texts[$i] return
  if ($type eq 'string') then $text
  else if ($type eq 'decimal') then xs:decimal($text)
  else if ($type eq 'item') then $items[xs:integer($text)]
  else if ($type eq 'boolean') then xs:boolean($text)
  else if ($type eq 'date') then xs:date($text)
  else if ($type eq 'dateTime') then xs:dateTime($text)
  else if ($type eq 'time') then xs:time($text)
  else if ($type eq 'dayTimeDuration') then xs:dayTimeDuration($text)
  else if ($type eq 'yearMonthDuration') then xs:yearMonthDuration($text)
  else ()`;

/**
 * An XPath function that builds one map or array from its members, given as
 * parallel sequences: per member a type (an {@link AtomicType}, `item` for an
 * already built map or array at position `$texts[$i]` of `$items`, `empty`
 * for an array member that is the empty sequence) and a lexical form; for a
 * map the keys, and apart the keys whose value is the empty sequence. A map
 * comes back followed by its members' values, an array alone.
 */
const BUILDER = `function($isMap as xs:boolean, $keys as xs:string*, $empty as xs:string*,
    $types as xs:string*, $texts as xs:string*, $items as item()*) as item()+ {
  if ($isMap) then
    let $values := for $i in 1 to count($types) return (${MEMBER})
    return (
      map:merge((for $i in 1 to count($keys) return map { $keys[$i]: $values[$i] },
        for $k in $empty return map { $k: () })),
      $values
    )
  else array:join(for $i in 1 to count($types) return [${MEMBER}])
}`;

let builder: XdmItem | undefined;

/**
 * Builds an array of `members`, or with `keys` a map of `keys[i]` to
 * `members[i]`. A map comes back followed by the values of its members
 * that are not the empty sequence, in order.
 */
function container(members: readonly XdmSource[], keys?: readonly string[]): XdmItem[] {
  builder ??= saxon.XPath.evaluate(BUILDER, null, { resultForm: "xdm" })[0];
  const present: string[] = [];
  const empty: string[] = [];
  const types: string[] = [];
  const texts: string[] = [];
  const items: XdmItem[] = [];
  members.forEach((value, i) => {
    if (value === null && keys !== undefined) {
      empty.push(keys[i]);
      return;
    }
    present.push(keys?.[i] ?? "");
    if (value === null) {
      types.push("empty");
      texts.push("");
    } else if ("type" in value) {
      types.push(value.type);
      texts.push(value.text);
    } else {
      items.push(
        isList(value) ? container(value)[0] : container([...value.values()], [...value.keys()])[0],
      );
      types.push("item");
      texts.push(String(items.length));
    }
  });
  return saxon.XPath.evaluate("$build($isMap, $keys, $empty, $types, $texts, $items)", null, {
    params: {
      build: builder,
      isMap: keys !== undefined,
      keys: present,
      empty,
      types,
      texts,
      items,
    },
    resultForm: "xdm",
  });
}

function isList(
  value: readonly XdmSource[] | ReadonlyMap<string, XdmSource>,
): value is readonly XdmSource[] {
  return Array.isArray(value);
}

/**
 * Builds the XDM map of `entries` and the XDM value of each entry, in one
 * call per map or array. Throws a SaxonError when a lexical form is not
 * valid for its type.
 */
export function buildMap(
  entries: ReadonlyMap<string, XdmSource>,
): { map: XdmItem; values: Map<string, XdmValue> } {
  const [map, ...items] = container([...entries.values()], [...entries.keys()]);
  const values = new Map<string, XdmValue>();
  let next = 0;
  for (const [name, value] of entries) values.set(name, value === null ? [] : items[next++]);
  return { map, values };
}
