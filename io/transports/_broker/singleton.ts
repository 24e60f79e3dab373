/**
 * `singleton: true` channels: one consumer across every replica. A replica
 * consumes only while it holds the channel's lease
 * ({@link TransportContext.lease}); it stops consuming when the lease is
 * lost, and another replica takes the lease over within its time-to-live
 * when the holder dies. A replica stopping gives the lease up at once.
 *
 * @module
 */
import type { Logger } from "../../../engine/core/log.ts";
import type { TransportContext } from "../../../engine/core/transport.ts";

/** Options for {@link singletonGate}. */
export interface SingletonGateOptions {
  readonly context: TransportContext;
  /** The lease role, e.g. `transport/rabbitmq/<tenant>/<channel>`. */
  readonly role: string;
  /** Lease time-to-live, milliseconds (the longest a takeover waits for a dead holder). */
  readonly ttlMs?: number;
  readonly logger: Logger;
  /** Starts consuming (called when the lease is taken). */
  start(): void;
  /** Stops consuming (called when the lease is lost or released). */
  stop(): Promise<void>;
}

/** A running gate. */
export interface SingletonGate {
  /** Stops consuming and gives the lease up. */
  close(): Promise<void>;
}

/**
 * Consumes only while this replica holds the role's lease. Without the
 * lease capability (no engine database) it consumes unguarded and says so.
 */
export function singletonGate(o: SingletonGateOptions): SingletonGate {
  if (!o.context.lease) {
    o.logger.warn("no lease capability: a singleton channel consumes on every replica", {
      role: o.role,
    });
    o.start();
    return { close: () => o.stop() };
  }
  const lease = o.context.lease(o.role, o.ttlMs === undefined ? {} : { ttlMs: o.ttlMs });
  lease.onChange((held) => {
    o.logger.info(held ? "singleton lease taken: consuming" : "singleton lease lost: paused", {
      role: o.role,
    });
    if (held) o.start();
    else void o.stop();
  });
  return {
    async close() {
      await lease.release();
      await o.stop();
    },
  };
}
