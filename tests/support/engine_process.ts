/**
 * Runs `main.ts` as a real child process, the way `deno task start` does,
 * and reads its JSON log lines.
 *
 * @module
 */

const root = new URL("../..", import.meta.url).pathname;

/** A running (or finished) engine child process. */
export interface EngineChild {
  /** Every stdout line so far, parsed as JSON where possible. */
  readonly records: Record<string, unknown>[];
  /** Resolves with the port once the boot line is logged, or rejects if the process exits first. */
  readonly started: Promise<number>;
  /** Resolves with exit code and stderr text when the process ends. */
  readonly exited: Promise<{ code: number; stderr: string }>;
  /** Sends a signal. */
  kill(signal?: Deno.Signal): void;
}

/** Options for {@link spawnEngine}. */
export interface SpawnEngineOptions {
  /** Working directory (its `.sutra/` holds the embedded database). */
  readonly cwd: string;
  /** Extra environment; `SUTRA_HTTP_PORT` defaults to 0 (a free port). */
  readonly env?: Record<string, string>;
  /** Runs the engine under `ulimit -n` this low (through `/bin/sh`). */
  readonly openFilesLimit?: number;
}

/** Starts `deno run -P=engine main.ts` with the project's configuration. */
export function spawnEngine(options: SpawnEngineOptions): EngineChild {
  const deno = [
    Deno.execPath(),
    "run",
    "-q",
    "--config",
    `${root}deno.json`,
    "-P=engine",
    `${root}main.ts`,
  ];
  const [command, ...args] = options.openFilesLimit === undefined
    ? deno
    : ["/bin/sh", "-c", `ulimit -n ${options.openFilesLimit} && exec "$@"`, "sh", ...deno];
  const child = new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: {
      DENO_NO_UPDATE_CHECK: "1",
      NO_COLOR: "1",
      SUTRA_HTTP_PORT: "0",
      SUTRA_HTTP_HOST: "127.0.0.1",
      ...options.env,
    },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();

  const records: Record<string, unknown>[] = [];
  let resolveStarted!: (port: number) => void;
  let rejectStarted!: (error: Error) => void;
  const started = new Promise<number>((resolve, reject) => {
    resolveStarted = resolve;
    rejectStarted = reject;
  });
  const stdoutDone = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let record: Record<string, unknown>;
        try {
          record = JSON.parse(line);
        } catch {
          record = { unparsed: line };
        }
        records.push(record);
        if (typeof record.port === "number" && String(record.message).includes("started")) {
          resolveStarted(record.port);
        }
      }
    }
  })();
  const stderrText = new Response(child.stderr).text();
  const exited = (async () => {
    const status = await child.status;
    await stdoutDone;
    const stderr = await stderrText;
    rejectStarted(new Error(`engine exited with ${status.code} before starting: ${stderr}`));
    return { code: status.code, stderr };
  })();
  started.catch(() => {});
  return { records, started, exited, kill: (signal = "SIGTERM") => child.kill(signal) };
}
