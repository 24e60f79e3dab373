/**
 * One file channel's consumer. Every poll it:
 *
 * 1. takes back the files of claim folders nobody holds any more (a
 *    consumer that crashed or stopped between a step's commit and the
 *    file's move) — inbox deduplication answers those whose step had
 *    committed, so nothing runs twice;
 * 2. claims each new file of the watched directory by renaming it into its
 *    own claim folder, `processing/<owner>/` — the rename is atomic, so of
 *    two consumers on one directory exactly one gets a file;
 * 3. delivers it under the idempotency key `<name>:<sha-256 of content>`,
 *    and moves it by the broker verdict: an ack to `done/`, a dead-letter
 *    to `failed/` with a `<name>.diagnostics.json` sidecar, a requeue stays
 *    in the claim folder and runs again after a backoff. On an on-complete
 *    channel the move waits until every instance the file started or
 *    advanced has ended.
 *
 * Names starting with `.` or ending with `.tmp`/`.part` are never picked:
 * writers write such a name and rename the finished file into the watched
 * directory.
 *
 * @module
 */
import { join } from "node:path";
import { unwrapCloudEvent } from "../../../engine/core/cloudevents.ts";
import type { Diagnostic } from "../../../engine/core/diagnostic.ts";
import { errorMessage } from "../../../engine/core/errors.ts";
import { payloadTooLarge } from "../../../engine/intake/mod.ts";
import type {
  AckVerdict,
  BoundChannel,
  InboundDelivery,
  TransportContext,
} from "../../../engine/core/transport.ts";
import { Backoff, type BrokerVerdict, verdictOf, verdictOfAck } from "../_broker/mod.ts";
import { retryAfterSeconds } from "../../../engine/runtime/tenancy/quotas.ts";
import { writeAtomically } from "./_atomic.ts";
import { exists, openOwnerFolder, type OwnerFolder, takeBackOrphans } from "./_owner.ts";
import { contentTypeOf, type FileChannelOptions, isPartialName } from "./options.ts";

/** The header a file's delivery carries its name in. */
export const FILE_NAME_HEADER = "file-name";

/** Where a file is in its run, keyed by name inside the claim folder. */
interface Pending {
  /** When it may run again (epoch ms); undefined while a run or a deferral holds it. */
  due?: number;
  backoff: Backoff;
}

/** A running consumer of one file channel. */
export class FileConsumer {
  readonly #context: TransportContext;
  readonly #channel: BoundChannel;
  readonly #options: FileChannelOptions;
  readonly #owner: OwnerFolder;
  readonly #pending = new Map<string, Pending>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #polling: Promise<void> = Promise.resolve();
  #stopped = false;

  private constructor(
    context: TransportContext,
    channel: BoundChannel,
    options: FileChannelOptions,
    owner: OwnerFolder,
  ) {
    this.#context = context;
    this.#channel = channel;
    this.#options = options;
    this.#owner = owner;
  }

  /** Creates the folders, takes a claim folder and starts polling. */
  static async start(
    context: TransportContext,
    channel: BoundChannel,
    options: FileChannelOptions,
  ): Promise<FileConsumer> {
    for (const dir of [options.directory, options.processing, options.done, options.failed]) {
      await Deno.mkdir(dir, { recursive: true });
    }
    const consumer = new FileConsumer(
      context,
      channel,
      options,
      await openOwnerFolder(options.processing),
    );
    consumer.#schedule(0);
    return consumer;
  }

  /** The channel this consumer serves. */
  get channel(): BoundChannel {
    return this.#channel;
  }

  /** Stops polling after the current poll; files still held stay for whoever takes them back. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#polling;
    this.#owner.release();
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#polling = this.#poll().finally(() => this.#schedule(this.#options.pollMs));
    }, ms);
  }

  async #poll(): Promise<void> {
    try {
      for (const name of await takeBackOrphans(this.#options.processing, this.#owner)) {
        this.#pending.set(name, { due: 0, backoff: this.#backoff() });
      }
      const now = Date.now();
      for (const [name, pending] of this.#pending) {
        if (this.#stopped) return;
        if (pending.due !== undefined && pending.due <= now) await this.#run(name, pending);
      }
      for (const name of await this.#newFiles()) {
        if (this.#stopped) return;
        if (await this.#claim(name)) await this.#run(name, { backoff: this.#backoff() });
      }
    } catch (error) {
      this.#context.logger.warn("polling a file channel failed; it polls again", {
        code: "SUTRA.FILE.POLL_FAILED",
        channel: this.#channel.declaration.name,
        directory: this.#options.directory,
        error: errorMessage(error),
      });
    }
  }

  #backoff(): Backoff {
    return new Backoff({ initialMs: this.#options.pollMs, maxMs: 60_000 });
  }

  /** The watched directory's message files, oldest name first. */
  async #newFiles(): Promise<string[]> {
    const names: string[] = [];
    for await (const entry of Deno.readDir(this.#options.directory)) {
      if (!entry.isFile || isPartialName(entry.name)) continue;
      if (this.#options.pattern.test(entry.name)) names.push(entry.name);
    }
    return names.sort();
  }

  /** Takes the file into this consumer's claim folder; false when another consumer has it. */
  async #claim(name: string): Promise<boolean> {
    // A file of the same name still held here waits until that one has moved on.
    if (this.#pending.has(name)) return false;
    try {
      await Deno.rename(join(this.#options.directory, name), join(this.#owner.path, name));
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
  }

  /** Delivers a claimed file and acts on the verdict (later, for an on-complete hold). */
  async #run(name: string, pending: Pending): Promise<void> {
    delete pending.due;
    this.#pending.set(name, pending);
    try {
      await this.#deliver(name, pending);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        this.#pending.delete(name);
        return;
      }
      pending.due = Date.now() + pending.backoff.next();
      throw error;
    }
  }

  async #deliver(name: string, pending: Pending): Promise<void> {
    const delivery = await this.#deliveryOf(name);
    if ("verdict" in delivery) return await this.#conclude(name, pending, delivery.verdict);
    let heard: AckVerdict | undefined;
    let hear: (verdict: AckVerdict) => void = (v) => heard = v;
    const outcome = await this.#context.deliver({
      ...delivery,
      deferral: { settle: (v) => hear(v) },
    });
    // The deferral is settled only for a settled outcome on an on-complete channel.
    if (outcome.kind !== "settled" || this.#channel.ackMode !== "on-complete") {
      return await this.#conclude(name, pending, verdictOf(outcome));
    }
    if (heard) return await this.#conclude(name, pending, verdictOfAck(heard));
    new Promise<AckVerdict>((resolve) => hear = resolve).then((verdict) =>
      this.#conclude(name, pending, verdictOfAck(verdict))
    );
  }

  /** The delivery of a claimed file, or the verdict when its content cannot be one. */
  async #deliveryOf(name: string): Promise<InboundDelivery | { verdict: BrokerVerdict }> {
    const path = join(this.#owner.path, name);
    // A file past the cap is refused from its size, without holding it in memory.
    const tooLarge = payloadTooLarge(this.#channel.declaration.name, (await Deno.stat(path)).size, {
      channelCapBytes: this.#channel.declaration.payloadCapBytes,
      capBytes: this.#context.payloadCapBytes,
    });
    if (tooLarge) return { verdict: { action: "dead-letter", diagnostic: tooLarge } };
    const body = await Deno.readFile(path);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
    const hash = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
    const delivery: InboundDelivery = {
      channel: this.#channel.declaration.name,
      body,
      contentType: contentTypeOf(this.#options, name),
      headers: { [FILE_NAME_HEADER]: name },
      idempotencyKey: `${name}:${hash}`,
    };
    if (this.#channel.declaration.cloudeventsMode !== "structured") return delivery;
    const unwrapped = unwrapCloudEvent(delivery);
    return "code" in unwrapped
      ? { verdict: { action: "dead-letter", diagnostic: unwrapped } }
      : unwrapped;
  }

  /** Moves the file by the verdict, or schedules another run. */
  async #conclude(name: string, pending: Pending, verdict: BrokerVerdict): Promise<void> {
    if (this.#stopped) return;
    if (verdict.action === "requeue") {
      // A refusal that names its wait (a tenant quota) is not run again before it.
      const quotaMs = (retryAfterSeconds(verdict.diagnostic) ?? 0) * 1000;
      pending.due = Date.now() + Math.max(pending.backoff.next(), quotaMs);
      this.#context.logger.info("a file is run again later", {
        code: verdict.diagnostic.code,
        channel: this.#channel.declaration.name,
        file: name,
      });
      return;
    }
    try {
      if (verdict.action === "ack") {
        await this.#moveOut(name, this.#options.done);
      } else {
        await this.#moveOut(name, this.#options.failed, verdict.diagnostic);
      }
      this.#pending.delete(name);
    } catch (error) {
      // Left in the claim folder: the next run is answered by inbox dedup, then moved again.
      pending.due = Date.now() + pending.backoff.next();
      this.#context.logger.error("a processed file could not be moved; it is run again later", {
        code: "SUTRA.FILE.MOVE_FAILED",
        channel: this.#channel.declaration.name,
        file: name,
        error: errorMessage(error),
      });
    }
  }

  /** Moves a claimed file into `folder` (beside an older file of that name), with its sidecar. */
  async #moveOut(
    name: string,
    folder: string,
    cause?: Diagnostic,
  ): Promise<void> {
    const source = join(this.#owner.path, name);
    let target = name;
    for (let n = 1; await exists(join(folder, target)); n++) target = `${name}.${n}`;
    if (cause) {
      const sidecar = {
        file: name,
        channel: this.#channel.declaration.name,
        diagnostics: [cause],
      };
      await writeAtomically(
        folder,
        `${target}.diagnostics.json`,
        new TextEncoder().encode(JSON.stringify(sidecar, null, 2)),
      );
    }
    await Deno.rename(source, join(folder, target));
  }
}
