/**
 * The file transport's crash scenario on the embedded database, the
 * air-gapped flavour's own: an engine process keeping its PGlite data
 * directory in its working directory is killed with SIGKILL in the middle
 * of a directory of files, with files committed but not yet moved; the
 * next engine on the same directories takes the claimed files back, and
 * every file's effect (one instance, one emitted file) happens exactly
 * once. A SIGKILL is also the embedded database's own crash: what its last
 * commits wrote must be there when the next engine opens it.
 */
import { join } from "node:path";
import { DEFAULT_EMBEDDED_DIR, openDatabase } from "../../engine/persistence/mod.ts";
import { killMidDirectory } from "./file_support.ts";

Deno.test("SIGKILL mid-directory on the embedded database: every file runs exactly once", async () => {
  await killMidDirectory({
    // No datasource: the engine opens the embedded database under its working directory.
    env: {},
    count: 150,
    instances: async (cwd) => {
      const db = await openDatabase("", { dataDir: join(cwd, DEFAULT_EMBEDDED_DIR) });
      try {
        const { rows } = await db.query<{ n: number }>("select count(*)::int as n from instances");
        return rows[0].n;
      } finally {
        await db.close();
      }
    },
  });
});
