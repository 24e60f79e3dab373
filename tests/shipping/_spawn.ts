/**
 * Runs an engine the way a user does — `deno task start`, `deno run` with a
 * flavour's flags, a compiled binary — as a child process, and watches its
 * output.
 *
 * @module
 */

/** The repository root, as a path ending in `/`. */
export const ROOT: string = new URL("../../", import.meta.url).pathname;

/** A running (or finished) child process. */
export interface Child {
  /** Every stdout and stderr line so far. */
  readonly lines: string[];
  /** The process id (the group id too, when spawned detached). */
  readonly pid: number;
  /** Resolves with the first match of `pattern` in a line, or rejects when the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves with the exit code and all output when the process ends. */
  readonly exited: Promise<{ code: number; output: string }>;
  /** Sends a signal to the process. */
  kill(signal?: Deno.Signal): void;
}

/** Options for {@link spawn}. */
export interface SpawnOptions {
  readonly cwd?: string;
  /** The whole environment (nothing is inherited but PATH, HOME and the registry variables). */
  readonly env?: Record<string, string>;
  /** Start in its own process group. */
  readonly detached?: boolean;
}

/**
 * What reaching a package registry needs from the machine (its CA bundle, a
 * proxy, Deno's cache), passed through when set: a build that downloads a
 * package behind a TLS-intercepting proxy fails without them.
 */
const MACHINE_VARIABLES = [
  "DENO_DIR",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
  "NPM_CONFIG_REGISTRY",
];

function machineEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of MACHINE_VARIABLES) {
    const value = Deno.env.get(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Starts `command args…`. */
export function spawn(command: string, args: readonly string[], options: SpawnOptions = {}): Child {
  const child = new Deno.Command(command, {
    args: [...args],
    cwd: options.cwd ?? ROOT,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/tmp",
      ...machineEnv(),
      DENO_NO_UPDATE_CHECK: "1",
      NO_COLOR: "1",
      ...options.env,
    },
    clearEnv: true,
    detached: options.detached ?? false,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const take = (line: string) => {
    lines.push(line);
    for (const w of [...waiters]) {
      const m = line.match(w.pattern);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  const read = async (stream: ReadableStream<Uint8Array>) => {
    let buffer = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        take(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
      }
    }
    if (buffer !== "") take(buffer);
  };
  const done = Promise.all([read(child.stdout), read(child.stderr)]);
  const exited = (async () => {
    const status = await child.status;
    await done;
    return { code: status.code, output: lines.join("\n") };
  })();
  return {
    lines,
    pid: child.pid,
    exited,
    waitFor(pattern) {
      const seen = lines.map((l) => l.match(pattern)).find((m) => m !== null);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        exited.then(({ code, output }) =>
          reject(new Error(`exited with ${code} before ${pattern}:\n${output}`))
        );
      });
    },
    kill: (signal = "SIGTERM") => child.kill(signal),
  };
}

/** The port an engine logs in its boot line (`listening on http://host:port`). */
export const LISTENING = /listening on http:\/\/[^:\s]+:(\d+)/;

/**
 * Polls `url` until it answers `status`; every other answer (or a refused
 * connection) is retried for up to two minutes, then the last answer fails
 * the test.
 */
export async function until(url: string, status: number, child?: Child): Promise<Response> {
  const deadline = Date.now() + 120_000;
  let last = "no answer";
  for (;;) {
    if (Date.now() > deadline) {
      throw new Error(
        `${url} never answered ${status}; last: ${last}\n${child?.lines.join("\n") ?? ""}`,
      );
    }
    try {
      const res = await fetch(url);
      if (res.status === status) return res;
      last = `${res.status} ${await res.text()}`;
    } catch {
      // Not listening yet.
    }
    if (child) {
      const finished = await Promise.race([child.exited, delay(50)]);
      if (finished) throw new Error(`exited with ${finished.code}:\n${finished.output}`);
    } else {
      await delay(50);
    }
  }
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms));
}

/** Runs `fn` in a fresh temporary directory, removed afterwards. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "sutra-shipping-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
