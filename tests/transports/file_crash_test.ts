/**
 * A real engine process killed with SIGKILL in the middle of a directory of
 * files, with files committed but not yet moved, on a PostgreSQL server:
 * the next engine on the same directory and database takes the killed
 * one's claimed files back, and every file's effect (one instance, one
 * emitted file) happens exactly once — inbox dedup answers the files whose
 * step had committed. `file_crash_pglite_test.ts` runs the same on the
 * embedded database.
 */
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { killMidDirectory } from "./file_support.ts";

tier2Test(
  "SIGKILL mid-directory: after a restart every file has run exactly once",
  () =>
    withServerDatabase(async (db, target) => {
      await killMidDirectory({
        env: { SUTRA_DATASOURCE_URL: target.url, SUTRA_DATASOURCE_SCHEMA: target.schema },
        count: 150,
        instances: async () => {
          const { rows } = await db.query<{ n: number }>(
            "select count(*)::int as n from instances",
          );
          return rows[0].n;
        },
      });
    }),
);
