/**
 * Each flavour's generated composition root, run under exactly the
 * permission flags its compiled binary would carry: it boots on the
 * embedded database, serves health and stops cleanly. The file flavour has
 * no network: it serves on a Unix socket in its data directory, and asked
 * to listen on TCP or reach a database server it fails with a diagnostic.
 * With `DENORT_BIN` set the binaries themselves are compiled and run too.
 */
import assert from "node:assert/strict";
import {
  compileCommands,
  type FlavourBuild,
  prepareFlavours,
  readRequest,
} from "../../tools/compile.ts";
import { ENGINE_V8_FLAGS, sourceReads } from "../../tools/flavours.ts";
import { LISTENING, ROOT, spawn, until, withTempDir } from "./_spawn.ts";

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = l.addr.port;
  l.close();
  return port;
}

/** Builds the flavour's root and flags for a run in `dir` on `port`. */
async function build(flavour: string, dir: string, port: number): Promise<FlavourBuild> {
  const out = `${ROOT}dist/test-${crypto.randomUUID()}`;
  const request = await readRequest([
    "--flavour",
    flavour,
    "--out",
    out,
    "--listen",
    `127.0.0.1:${port}`,
    "--data-dir",
    `${dir}/db`,
    "--roots-only",
  ]);
  const [b] = await prepareFlavours(request, () => {});
  return b;
}

/** The Unix socket the file flavour listens on by default, and its boot line. */
const SOCKET_LISTENING = /listening on unix:([^"\s]+)/;

/** Runs a root with `deno run` and the flags its binary would carry (plus the npm packages' wasm). */
function runRoot(
  b: FlavourBuild,
  dir: string,
  args: readonly string[],
  env: Record<string, string | undefined> = {},
) {
  const reads = sourceReads().join(",");
  const flags = b.flags.map((f) => f.startsWith("--allow-read=") ? `${f},${reads}` : f);
  return spawn(Deno.execPath(), [
    "run",
    "-q",
    "--no-prompt",
    "--config",
    `${ROOT}deno.json`,
    ...flags,
    b.root,
    ...args,
  ], {
    cwd: dir,
    // An `undefined` in `env` leaves that variable unset.
    env: Object.fromEntries(
      Object.entries({
        SUTRA_DATASOURCE_EMBEDDED_DIR: `${dir}/db`,
        SUTRA_HTTP_HOST: "127.0.0.1",
        ...env,
      }).filter((e): e is [string, string] => e[1] !== undefined),
    ),
  });
}

/** GET `path` over the Unix socket `socket`. */
async function getOverSocket(socket: string, path: string): Promise<Response> {
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socket } });
  try {
    const response = await fetch(`http://localhost${path}`, { client });
    return new Response(await response.bytes(), response);
  } finally {
    client.close();
  }
}

async function cleanUp(b: FlavourBuild): Promise<void> {
  await Deno.remove(b.root.replace(/\/roots\/[^/]+$/, ""), { recursive: true });
}

async function bootsAndServesHealth(flavour: string): Promise<void> {
  await withTempDir(async (dir) => {
    const port = freePort();
    const b = await build(flavour, dir, port);
    try {
      assert.ok(!b.flags.some((f) => f.startsWith("--allow-run")), b.flags.join(" "));
      assert.ok(!b.flags.includes("--allow-all") && !b.flags.includes("-A"));
      const child = runRoot(b, dir, ["--port", String(port)]);
      try {
        if (flavour === "file") {
          const [, socket] = await child.waitFor(SOCKET_LISTENING);
          assert.equal(socket, `${dir}/db/sutra.sock`);
          const live = await getOverSocket(socket, "/sutra/health/live");
          assert.equal(live.status, 200, await live.clone().text());
          assert.equal((await live.json()).status, "UP");
        } else {
          await child.waitFor(LISTENING);
          const ready = await until(`http://127.0.0.1:${port}/sutra/health/ready`, 200, child);
          assert.equal((await ready.json()).status, "UP");
        }
      } finally {
        child.kill("SIGTERM");
        const { code, output } = await child.exited;
        assert.equal(code, 0, output);
        assert.match(output, /sutra-engine stopped/);
        // A clean stop leaves no socket file behind.
        if (flavour === "file") await assert.rejects(Deno.lstat(`${dir}/db/sutra.sock`));
      }
    } finally {
      await cleanUp(b);
    }
  });
}

Deno.test("flavour flags: none may run programs; file has no network, only its Unix socket", async () => {
  await withTempDir(async (dir) => {
    const builds = await Promise.all(["full", "http", "file"].map((f) => build(f, dir, 18080)));
    try {
      for (const b of builds) {
        assert.ok(!b.flags.some((f) => f.startsWith("--allow-run")), `${b.flavour}: ${b.flags}`);
        assert.ok(b.flags.includes("--ignore-env"));
        assert.ok(b.flags.includes(ENGINE_V8_FLAGS));
        const env = b.flags.find((f) => f.startsWith("--allow-env="))!.split("=")[1].split(",");
        assert.ok(env.includes("SUTRA_HTTP_PORT") && env.includes("SUTRA_DATASOURCE_URL"));
        assert.ok(env.every((n) => n.startsWith("SUTRA_") || n === "OTEL_EXPORTER_OTLP_ENDPOINT"));
        assert.deepEqual(
          b.flags.find((f) => f.startsWith("--allow-write=")),
          `--allow-write=${dir}/db`,
        );
      }
      const [full, http, file] = builds;
      assert.ok(full.flags.includes("--allow-net"));
      assert.ok(http.flags.includes("--allow-net"));
      assert.deepEqual(http.transports.map((t) => t.name), ["http", "local", "pull"]);
      // Deno grants a Unix socket as a net permission on its path: no host, no port.
      assert.deepEqual(
        file.flags.filter((f) => f.startsWith("--allow-net")),
        [`--allow-net=unix:${dir}/db/sutra.sock`],
      );
      assert.ok(!file.flags.some((f) => /127\.0\.0\.1|18080/.test(f)), file.flags.join(" "));
      assert.ok(full.flags.every((f) => !f.includes("unix:")));
      assert.ok(http.flags.every((f) => !f.includes("unix:")));
      assert.ok(file.transports.every((t) => !t.network));
      assert.ok(!file.transports.some((t) => t.name === "http"));
      const root = await Deno.readTextFile(file.root);
      assert.doesNotMatch(root, /transports\/http\//);
      assert.match(root, /SUTRA_HTTP_SOCKET: ".*\/db\/sutra\.sock"/);
      assert.doesNotMatch(await Deno.readTextFile(http.root), /SUTRA_HTTP_SOCKET/);
    } finally {
      for (const b of builds) await cleanUp(b).catch(() => {});
    }
  });
});

Deno.test("each flavour (http, file, full) boots on the embedded database under its own flags", async () => {
  await Promise.all(["http", "file", "full"].map(bootsAndServesHealth));
});

Deno.test("a binary opens the data directory its build named without being told again", async () => {
  await withTempDir(async (dir) => {
    const b = await build("file", dir, freePort());
    try {
      await Deno.mkdir(`${dir}/elsewhere`);
      const child = runRoot(b, `${dir}/elsewhere`, [], {
        SUTRA_DATASOURCE_EMBEDDED_DIR: undefined,
      });
      try {
        const [, socket] = await child.waitFor(SOCKET_LISTENING);
        assert.equal(socket, `${dir}/db/sutra.sock`);
        assert.match(child.lines.join("\n"), new RegExp(`database pglite:${dir}/db[;"]`));
      } finally {
        child.kill("SIGTERM");
        const { code, output } = await child.exited;
        assert.equal(code, 0, output);
      }
    } finally {
      await cleanUp(b);
    }
  });
});

Deno.test("the file flavour asked to reach a database server fails with a diagnostic, no stack trace", async () => {
  await withTempDir(async (dir) => {
    const port = freePort();
    const b = await build("file", dir, port);
    try {
      const run = await runRoot(b, dir, [
        "--port",
        String(port),
        "--datasource",
        "postgres://postgres@127.0.0.1:5432/test",
      ]).exited;
      assert.equal(run.code, 1, run.output);
      assert.match(
        run.output,
        /ERROR SUTRA\.ENGINE\.PERMISSION_DENIED: the engine could not start: this build has no net access to 127\.0\.0\.1:5432/,
      );
      assert.doesNotMatch(run.output, /^\s+at /m);
    } finally {
      await cleanUp(b);
    }
  });
});

Deno.test("the file flavour asked to listen on TCP is refused with a diagnostic, no stack trace", async () => {
  await withTempDir(async (dir) => {
    const port = freePort();
    const b = await build("file", dir, port);
    try {
      // An empty socket setting asks for the TCP listener, which this build may not open.
      const run = await runRoot(b, dir, ["--port", String(port)], { SUTRA_HTTP_SOCKET: "" })
        .exited;
      assert.equal(run.code, 1, run.output);
      assert.match(
        run.output,
        new RegExp(
          `ERROR SUTRA\\.ENGINE\\.PERMISSION_DENIED: the engine could not start: this build has no net access to 127\\.0\\.0\\.1:${port}`,
        ),
      );
      assert.doesNotMatch(run.output, /^\s+at /m);
    } finally {
      await cleanUp(b);
    }
  });
});

const denort = Deno.env.get("DENORT_BIN");
Deno.test({
  name: "with DENORT_BIN: the compiled flavours boot and serve health",
  ignore: denort === undefined,
  async fn() {
    await withTempDir(async (dir) => {
      const port = freePort();
      const b = await build("file", dir, port);
      try {
        const out = b.root.replace(/\/roots\/[^/]+$/, "");
        const [engineArgs] = compileCommands([b], out);
        const compiled = await spawn(Deno.execPath(), engineArgs, { env: { DENORT_BIN: denort! } })
          .exited;
        assert.equal(compiled.code, 0, compiled.output);
        const child = spawn(`${out}/${b.binary}`, ["--port", String(port)], {
          cwd: dir,
          env: { SUTRA_DATASOURCE_EMBEDDED_DIR: `${dir}/db`, SUTRA_HTTP_HOST: "127.0.0.1" },
        });
        try {
          const [, socket] = await child.waitFor(SOCKET_LISTENING);
          assert.equal((await getOverSocket(socket, "/sutra/health/live")).status, 200);
        } finally {
          child.kill("SIGTERM");
          assert.equal((await child.exited).code, 0);
        }
      } finally {
        await cleanUp(b);
      }
    });
  },
});
if (denort === undefined) {
  console.error(
    "notice: DENORT_BIN is unset: the compiled binaries are not built (roots are run instead)",
  );
}

Deno.test("the engine and bench tasks run with the V8 settings the builds bake in", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const engineBenches = [
    "bench:http",
    "bench:external-tasks",
    "bench:transports",
    "bench:store-locks",
  ];
  for (const task of ["start", "engine", ...engineBenches]) {
    assert.ok(
      config.tasks[task].split(" ").includes(ENGINE_V8_FLAGS),
      `${task}: ${config.tasks[task]}`,
    );
  }
});
