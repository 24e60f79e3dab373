/**
 * Checks on the `codec-manifest.yaml` and the files of a schema folder that
 * the schema kinds share. Every finding is a deploy-time diagnostic on the
 * manifest or the offending file.
 *
 * @module
 */
import type { SchemaFolder } from "../../engine/core/codec.ts";
import { type Diagnostic, diagnostic } from "../../engine/core/diagnostic.ts";

/** The manifest's file name. */
export const MANIFEST = "codec-manifest.yaml";

/** A diagnostic about the folder's manifest. */
export function manifestInvalid(folder: SchemaFolder, message: string): Diagnostic {
  return diagnostic("SUTRA.CONFIG.CODEC_MANIFEST.INVALID", message, {
    source: { uri: `${folder.path}/${MANIFEST}` },
    attributes: { codec: folder.urn },
  });
}

/** A diagnostic about the folder's layout, on `file` when one is at fault. */
export function layoutInvalid(folder: SchemaFolder, message: string, file?: string): Diagnostic {
  return diagnostic("SUTRA.CONFIG.CODEC_LAYOUT.INVALID", message, {
    source: { uri: file === undefined ? folder.path : `${folder.path}/${file}` },
    attributes: { codec: folder.urn },
  });
}

/** A diagnostic about a schema file that cannot be used. */
export function schemaInvalid(
  folder: SchemaFolder,
  file: string,
  message: string,
  line?: number,
): Diagnostic {
  const uri = `${folder.path}/${file}`;
  return diagnostic("SUTRA.CONFIG.SCHEMA.INVALID", message, {
    source: line === undefined ? { uri } : { uri, line },
    attributes: { codec: folder.urn },
  });
}

/** Reports every manifest key this kind does not read. */
export function unknownKeys(folder: SchemaFolder, known: readonly string[]): Diagnostic[] {
  return Object.keys(folder.manifest).filter((k) => !known.includes(k)).map((k) =>
    manifestInvalid(folder, `unknown key '${k}' (this kind reads ${known.join(", ")})`)
  );
}

/** The manifest's `formats:` (defaulting to the first allowed), or what is wrong with it. */
export function manifestFormats<F extends string>(
  folder: SchemaFolder,
  allowed: readonly F[],
): { formats: F[]; diagnostics: Diagnostic[] } {
  const raw = folder.manifest.formats;
  if (raw === undefined) return { formats: [allowed[0]], diagnostics: [] };
  const problems: Diagnostic[] = [];
  if (!Array.isArray(raw) || raw.length === 0) {
    problems.push(
      manifestInvalid(folder, `formats must be a non-empty list of ${allowed.join(", ")}`),
    );
    return { formats: [], diagnostics: problems };
  }
  const formats: F[] = [];
  for (const f of raw) {
    if (typeof f !== "string" || !(allowed as readonly string[]).includes(f)) {
      problems.push(
        manifestInvalid(folder, `format '${String(f)}' is not one of ${allowed.join(", ")}`),
      );
    } else if (formats.includes(f as F)) {
      problems.push(manifestInvalid(folder, `format '${f}' is listed twice`));
    } else {
      formats.push(f as F);
    }
  }
  return { formats, diagnostics: problems };
}

/** Reports files not ending in `extension`, and a folder without any that do. */
export function layoutOf(folder: SchemaFolder, extension: string, kind: string): Diagnostic[] {
  const problems: Diagnostic[] = [];
  let schemas = 0;
  for (const file of folder.files.keys()) {
    if (file.endsWith(extension)) schemas++;
    else {
      problems.push(
        layoutInvalid(
          folder,
          `'${file}' is not a ${kind} file (a ${kind} codec folder holds only ${extension} files)`,
          file,
        ),
      );
    }
  }
  if (schemas === 0) {
    problems.push(layoutInvalid(folder, `the codec folder has no ${extension} file`));
  }
  return problems;
}
