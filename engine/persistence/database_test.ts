import assert from "node:assert/strict";
import {
  eachDatabase,
  tier2Test,
  withMemoryDatabase,
  withServerDatabase,
} from "../../tests/support/test_database.ts";
import { type CutProxy, startCutProxy } from "../../tests/support/pg_cut_proxy.ts";
import { createLogger } from "../core/log.ts";
import {
  CommitInDoubtError,
  type Database,
  openDatabase,
  SqlError,
  type Transaction,
} from "./mod.ts";

/** Resolves once `check` is true, polling; fails after `ms`. */
async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function count(db: Database, table: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`select count(*) as n from ${table}`);
  return rows[0].n;
}

eachDatabase("column types read back as the same JS values", async (db) => {
  await db.exec(`create table typed (
    i2 int2, i4 int4, i8 int8, n numeric, f8 float8, tz timestamptz, ts timestamp, d date,
    j json, jb jsonb, b bytea, t text, ok bool, u uuid)`);
  const values = [
    -3,
    2_000_000_000,
    9007199254740991,
    "12.50",
    1.5,
    new Date("2024-03-04T05:06:07.891Z"),
    new Date("2024-03-04T05:06:07Z"),
    "2024-03-04",
    { a: [1, "x"] },
    { b: null, c: "ü" },
    new Uint8Array([0, 1, 255]),
    "héllo",
    true,
    "6f1c1a4e-4a9c-4c3e-9f0e-2f7d5b0c8a11",
  ];
  const { rows } = await db.query(
    "insert into typed values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14) returning *",
    values,
  );
  assert.deepEqual(rows, [{
    i2: -3,
    i4: 2_000_000_000,
    i8: 9007199254740991,
    n: "12.50",
    f8: 1.5,
    tz: new Date("2024-03-04T05:06:07.891Z"),
    ts: new Date("2024-03-04T05:06:07Z"),
    d: "2024-03-04",
    j: { a: [1, "x"] },
    jb: { b: null, c: "ü" },
    b: new Uint8Array([0, 1, 255]),
    t: "héllo",
    ok: true,
    u: "6f1c1a4e-4a9c-4c3e-9f0e-2f7d5b0c8a11",
  }]);
  assert.equal(Object.getPrototypeOf(rows[0].b), Uint8Array.prototype);

  const nulls = await db.query("insert into typed values (null) returning i2, j, b, ok");
  assert.deepEqual(nulls.rows, [{ i2: null, j: null, b: null, ok: null }]);
});

eachDatabase("computed values, arrays and JSON strings convert alike", async (db) => {
  const { rows } = await db.query(
    `select count(*) as c, 7::int8 * 6 as product, 1.10::numeric + 2 as sum,
            '2024-01-02 03:04:05.678+02'::timestamptz as shifted,
            $1::text[] as names, $2::int[] as ints, $3::jsonb as str, $4::bool as flag`,
    [["x", "y"], [1, 2], "plain", "true"],
  );
  assert.deepEqual(rows, [{
    c: 1,
    product: 42,
    sum: "3.10",
    shifted: new Date("2024-01-02T01:04:05.678Z"),
    names: ["x", "y"],
    ints: [1, 2],
    str: "plain",
    flag: true,
  }]);
});

eachDatabase("an int8 beyond 2^53 is refused with the column named", async (db) => {
  await assert.rejects(
    db.query("select 9007199254740993::int8 as big"),
    (e) => e instanceof RangeError && /"big"/.test(e.message) && /9007199254740993/.test(e.message),
  );
  // The statement itself succeeded, so the connection is fine afterwards.
  assert.deepEqual((await db.query("select 1 as one")).rows, [{ one: 1 }]);
});

eachDatabase("rowCount counts returned or affected rows", async (db) => {
  await db.exec("create table r (k int primary key, v text)");
  assert.equal((await db.query("insert into r values (1,'a'),(2,'b'),(3,'c')")).rowCount, 3);
  assert.equal((await db.query("update r set v = 'z' where k > $1", [1])).rowCount, 2);
  const selected = await db.query("select * from r order by k");
  assert.equal(selected.rowCount, 3);
  assert.equal(selected.rows.length, 3);
  assert.equal((await db.query("delete from r where k = 1")).rowCount, 1);
  assert.equal((await db.query("create index r_v on r (v)")).rowCount, 0);
});

eachDatabase("bad parameters and refused statements fail alike", async (db) => {
  await assert.rejects(db.query("select $1::int as x", [undefined]), TypeError);
  await db.exec("create table u (k int constraint u_pk primary key)");
  await db.query("insert into u values (1)");
  await assert.rejects(
    db.query("insert into u values (1)"),
    (e) =>
      e instanceof SqlError && e.code === "23505" && e.constraint === "u_pk" && e.table === "u",
  );
  await assert.rejects(db.query("selec 1"), (e) => e instanceof SqlError && e.code === "42601");
  await assert.rejects(
    db.exec("select 1; selec 2"),
    (e) => e instanceof SqlError && e.code === "42601",
  );
});

eachDatabase("a transaction commits on resolve and rolls back on throw", async (db) => {
  await db.exec("create table t (k int)");
  const result = await db.transaction(async (tx) => {
    await tx.query("insert into t values ($1)", [1]);
    await tx.exec("insert into t values (2); insert into t values (3)");
    return "done";
  });
  assert.equal(result, "done");
  assert.equal(await count(db, "t"), 3);

  const boom = new Error("boom");
  await assert.rejects(
    db.transaction(async (tx) => {
      await tx.query("insert into t values (4)");
      throw boom;
    }),
    (e) => e === boom,
  );
  assert.equal(await count(db, "t"), 3);
});

eachDatabase("a savepoint rollback keeps the outer transaction's work", async (db) => {
  await db.exec("create table s (k int)");
  await db.transaction(async (tx) => {
    await tx.query("insert into s values (1)");
    await assert.rejects(
      tx.savepoint(async (sp) => {
        await sp.query("insert into s values (2)");
        throw new Error("undo the savepoint");
      }),
      /undo the savepoint/,
    );
    const kept = await tx.savepoint(async (sp) => {
      await sp.query("insert into s values (3)");
      return await sp.savepoint(async (inner) => {
        await inner.query("insert into s values (4)");
        return "nested";
      });
    });
    assert.equal(kept, "nested");
  });
  const { rows } = await db.query<{ k: number }>("select k from s order by k");
  assert.deepEqual(rows.map((r) => r.k), [1, 3, 4]);
});

eachDatabase("a failed statement spoils its scope even when caught", async (db) => {
  await db.exec("create table f (k int primary key)");
  await assert.rejects(
    db.transaction(async (tx) => {
      await tx.query("insert into f values (1)");
      await tx.query("insert into f values (1)").catch(() => {});
      return "swallowed";
    }),
    (e) => e instanceof SqlError && e.code === "23505",
  );
  assert.equal(await count(db, "f"), 0);

  // The statement that broke the transaction is reported, not the refusals
  // of the statements after it.
  await assert.rejects(
    db.transaction(async (tx) => {
      await tx.query("insert into f values (1), (1)").catch(() => {});
      await tx.query("select 1");
    }),
    (e) => e instanceof SqlError && e.code === "23505",
  );

  // Inside a savepoint the damage stays there: the outer transaction commits.
  await db.transaction(async (tx) => {
    await tx.query("insert into f values (1)");
    await assert.rejects(
      tx.savepoint(async (sp) => {
        await sp.query("insert into f values (1)").catch(() => {});
      }),
      (e) => e instanceof SqlError && e.code === "23505",
    );
    await tx.query("insert into f values (2)");
  });
  assert.equal(await count(db, "f"), 2);
});

eachDatabase("a transaction handle is dead once its transaction ended", async (db) => {
  let leaked: Transaction | undefined;
  await db.transaction(async (tx) => {
    await tx.query("select 1");
    leaked = tx;
  });
  await assert.rejects(leaked!.query("select 1"), /transaction has ended/);
  await assert.rejects(leaked!.savepoint(() => Promise.resolve()), /transaction has ended/);
});

eachDatabase("NOTIFY reaches listeners only after the sender commits", async (db) => {
  const received: string[] = [];
  const unlisten = await db.listen("sutra_test_events", (payload) => received.push(payload));
  try {
    await db.transaction(async (tx) => {
      await tx.query("select pg_notify($1, $2)", ["sutra_test_events", "from-tx"]);
      await sleep(100);
      assert.deepEqual(received, []);
    });
    await eventually(() => received.length === 1);
    assert.deepEqual(received, ["from-tx"]);

    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query("select pg_notify('sutra_test_events', 'rolled-back')");
        throw new Error("abandon");
      }),
      /abandon/,
    );
    await db.notify("sutra_test_events", "direct");
    await eventually(() => received.length === 2);
    assert.deepEqual(received, ["from-tx", "direct"]);
  } finally {
    await unlisten();
  }
  await db.notify("sutra_test_events", "after-unlisten");
  await sleep(100);
  assert.deepEqual(received, ["from-tx", "direct"]);
  await assert.rejects(db.listen("Bad-Channel", () => {}), TypeError);
});

Deno.test("a closed database refuses work and closes twice harmlessly", async () => {
  const db = await openDatabase("memory://");
  await db.close();
  await db.close();
  await assert.rejects(db.query("select 1"), /closed/);
});

tier2Test("a closed server database refuses work and closes twice harmlessly", async () => {
  await withServerDatabase(async (db) => {
    await db.close();
    await db.close();
    await assert.rejects(db.query("select 1"), /closed/);
  });
});

/**
 * Runs `fn` on a second handle to the test schema with a one-second connect
 * timeout, so a connection the driver failed to reopen would surface (as an
 * uncaught rejection, failing the test) within the test's own lifetime.
 */
async function withShortTimeout(fn: (db: Database, admin: Database) => Promise<void>) {
  await withServerDatabase(async (admin, target) => {
    const db = await openDatabase(target.url, { schema: target.schema, connectTimeoutSeconds: 1 });
    try {
      await fn(db, admin);
      await sleep(1500);
    } finally {
      await db.close();
    }
  });
}

/**
 * What every connection of a pool answers after a break: serial, parallel,
 * in transactions — within ten seconds, since a broken pool hangs rather
 * than fails.
 */
async function assertPoolUsable(db: Database): Promise<void> {
  const work = (async () => {
    for (let i = 0; i < 25; i++) await db.query("select 1");
    await Promise.all(Array.from({ length: 25 }, () => db.query("select 1")));
    for (let i = 0; i < 12; i++) {
      await db.transaction(async (tx) => {
        await tx.query("select 1");
      });
    }
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the pool did not answer within 10 s")), 10_000);
  });
  try {
    await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

tier2Test(
  "a connection killed inside a transaction fails it and leaves the pool usable",
  () =>
    withShortTimeout(async (db, admin) => {
      await db.exec("create table k (v int)");
      await assert.rejects(db.transaction(async (tx) => {
        await tx.query("insert into k values (1)");
        const { rows } = await tx.query<{ pid: number }>("select pg_backend_pid() as pid");
        // Killed from outside, as a server restart, a failover or a proxy would.
        await admin.query("select pg_terminate_backend($1)", [rows[0].pid]);
        await tx.query("insert into k values (2)");
      }));
      await assertPoolUsable(db);
      const { rows } = await db.query<{ n: number }>("select count(*)::int as n from k");
      assert.equal(rows[0].n, 0, "the killed transaction left nothing behind");
    }),
);

tier2Test(
  "a connection killed under a running statement fails it and leaves the pool usable",
  () =>
    withShortTimeout(async (db, admin) => {
      const marker = `sutra-kill-${crypto.randomUUID()}`;
      const slow = db.query(`select pg_sleep(5), '${marker}' as marker`);
      slow.catch(() => {});
      for (let killed = 0; killed === 0; await sleep(20)) {
        const { rows } = await admin.query<{ n: number }>(
          `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
          where query like $1 and pid <> pg_backend_pid()`,
          [`%'${marker}'%`],
        );
        killed = rows[0].n;
      }
      await assert.rejects(slow);
      await assertPoolUsable(db);
    }),
);

tier2Test(
  "a connection that closes after its transaction ended replaces nothing",
  () =>
    withServerDatabase(async (admin, target) => {
      const lines: string[] = [];
      const db = await openDatabase(target.url, {
        schema: target.schema,
        maxConnections: 1,
        log: createLogger("test", { filter: "warn", write: (line) => lines.push(line) }),
      });
      try {
        const pid = await db.transaction(async (tx) => {
          const { rows } = await tx.query<{ pid: number }>("select pg_backend_pid() as pid");
          return rows[0].pid;
        });
        // The idle connection is closed from outside: the driver simply reconnects.
        await admin.query("select pg_terminate_backend($1)", [pid]);
        await sleep(100);
        await assertPoolUsable(db);
        assert.deepEqual(lines.filter((l) => l.includes("SUTRA.DB.CONNECTION_LOST")), []);
      } finally {
        await db.close();
      }
    }),
);

tier2Test(
  "a LISTEN survives its pool being replaced after a broken connection",
  () =>
    withShortTimeout(async (db, admin) => {
      const heard: string[] = [];
      const unlisten = await db.listen("sutra_pool_test", (payload) => heard.push(payload));
      await assert.rejects(db.transaction(async (tx) => {
        const { rows } = await tx.query<{ pid: number }>("select pg_backend_pid() as pid");
        await admin.query("select pg_terminate_backend($1)", [rows[0].pid]);
        await tx.query("select 1");
      }));
      // The new pool re-subscribes in the background; keep notifying until it hears one.
      for (let i = 0; i < 100 && !heard.includes("after"); i++) {
        await admin.notify("sutra_pool_test", "after");
        await sleep(20);
      }
      assert.ok(heard.includes("after"), "the listener heard a notification sent after the break");
      await unlisten();
    }),
);

tier2Test("FOR UPDATE on the server blocks a second transaction until the first ends", async () => {
  await withServerDatabase(async (db) => {
    await db.exec(
      "create table locked (k int primary key, v int); insert into locked values (1, 0)",
    );
    const events: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => releaseFirst = resolve);
    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => firstLocked = resolve);

    const first = db.transaction(async (tx) => {
      await tx.query("select * from locked where k = 1 for update");
      firstLocked();
      await firstHolds;
      await tx.query("update locked set v = v + 1 where k = 1");
      events.push("first commits");
    });
    await locked;
    const second = db.transaction(async (tx) => {
      const { rows } = await tx.query<{ v: number }>("select v from locked where k = 1 for update");
      events.push(`second sees ${rows[0].v}`);
    });
    await sleep(300);
    assert.deepEqual(events, []);
    releaseFirst();
    await Promise.all([first, second]);
    assert.deepEqual(events, ["first commits", "second sees 1"]);
  });
});

Deno.test("PGlite runs one transaction at a time and queues outside statements", async () => {
  await withMemoryDatabase(async (db) => {
    await db.exec("create table q (k text)");
    const events: string[] = [];
    let releaseA!: () => void;
    const aHolds = new Promise<void>((resolve) => releaseA = resolve);
    let aStarted!: () => void;
    const started = new Promise<void>((resolve) => aStarted = resolve);

    const a = db.transaction(async (tx) => {
      events.push("a begins");
      await tx.query("insert into q values ('a')");
      aStarted();
      await aHolds;
      events.push("a rolls back");
      throw new Error("a aborts");
    });
    await started;
    const b = db.transaction(async (tx) => {
      events.push("b begins");
      await tx.query("insert into q values ('b')");
    });
    // Outside any transaction: must neither run inside a's transaction nor
    // be lost by its rollback.
    const outside = db.query("insert into q values ('outside')").then(() => events.push("outside"));
    await sleep(100);
    assert.deepEqual(events, ["a begins"]);
    releaseA();
    await assert.rejects(a, /a aborts/);
    await Promise.all([b, outside]);
    assert.deepEqual(events, ["a begins", "a rolls back", "b begins", "outside"]);
    const { rows } = await db.query<{ k: string }>("select k from q order by k");
    assert.deepEqual(rows.map((r) => r.k), ["b", "outside"]);
  });
});

Deno.test("PGlite refuses a database call from inside its own transaction instead of hanging", async () => {
  await withMemoryDatabase(async (db) => {
    await db.transaction(async () => {
      await assert.rejects(db.query("select 1"), /single connection/);
      await assert.rejects(db.transaction(() => Promise.resolve()), /single connection/);
    });
    // A listener fired by a commit may use the database.
    const seen: number[] = [];
    const unlisten = await db.listen("sutra_test_echo", () => {
      db.query<{ one: number }>("select 1 as one").then((r) => seen.push(r.rows[0].one));
    });
    await db.transaction(async (tx) => {
      await tx.query("select pg_notify('sutra_test_echo', '')");
    });
    await eventually(() => seen.length === 1);
    await unlisten();
  });
});

Deno.test("a schema option isolates in-memory tables too", async () => {
  await withMemoryDatabase(async (db) => {
    await db.exec("create table inside (k int)");
    const { rows } = await db.query<{ schemaname: string }>(
      "select schemaname from pg_tables where tablename = 'inside'",
    );
    assert.deepEqual(rows, [{ schemaname: "tenant_a" }]);
  }, { schema: "tenant_a" });
});

/** Runs `fn` on a database reaching the server through a proxy that can cut a COMMIT. */
function throughCutProxy(
  fn: (db: Database, proxy: CutProxy, admin: Database) => Promise<void>,
): Promise<void> {
  return withServerDatabase(async (admin, target) => {
    const proxy = startCutProxy(target.url);
    const db = await openDatabase(proxy.url, { schema: target.schema, connectTimeoutSeconds: 1 });
    try {
      await db.exec("create table doubt (v int)");
      await fn(db, proxy, admin);
    } finally {
      await db.close();
      await proxy.close();
    }
  });
}

const rowsIn = async (db: Database) =>
  (await db.query<{ v: number }>("select v from doubt order by v")).rows.map((r) => r.v);

tier2Test(
  "a commit whose answer is lost but which took effect succeeds",
  () =>
    throughCutProxy(async (db, proxy, admin) => {
      proxy.cutNext("after-commit", { ran: "insert into doubt" });
      const answer = await db.transaction(async (tx) => {
        await tx.query("insert into doubt values (1)");
        return "done";
      });
      await proxy.cut();
      assert.equal(answer, "done");
      assert.deepEqual(await rowsIn(admin), [1]);
      await assertPoolUsable(db);
    }),
);

tier2Test(
  "a commit cut off before the server got it fails, with nothing written",
  () =>
    throughCutProxy(async (db, proxy, admin) => {
      proxy.cutNext("before-commit", { ran: "insert into doubt" });
      await assert.rejects(
        db.transaction((tx) => tx.query("insert into doubt values (2)")),
        (error: Error) => !(error instanceof CommitInDoubtError),
      );
      assert.deepEqual(await rowsIn(admin), []);
      await assertPoolUsable(db);
    }),
);

tier2Test(
  "a commit nobody can vouch for is reported in doubt, naming the transaction",
  () =>
    throughCutProxy(async (db, proxy, admin) => {
      proxy.cutNext("after-commit", { ran: "insert into doubt" });
      const committing = db.transaction((tx) => tx.query("insert into doubt values (3)"));
      committing.catch(() => {});
      // The server stays up, but this engine cannot reach it any more to ask.
      proxy.refuseNew();
      await assert.rejects(committing, (error: Error) => {
        assert.ok(error instanceof CommitInDoubtError, String(error));
        assert.match(error.transactionId, /^\d+$/);
        return true;
      });
      assert.deepEqual(await rowsIn(admin), [3], "it had in fact committed");
    }),
);
