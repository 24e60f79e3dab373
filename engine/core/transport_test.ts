import assert from "node:assert/strict";
import { Registry } from "./registry.ts";
import { collectSinks, destinationScheme, type Sink, type TransportFactory } from "./transport.ts";

Deno.test("destinationScheme reads the scheme with or without a method prefix", () => {
  assert.equal(destinationScheme("https://h/p"), "https");
  assert.equal(destinationScheme("POST http://127.0.0.1:9/x"), "http");
  assert.equal(destinationScheme("local://to-hub"), "local");
  assert.equal(destinationScheme("no scheme here"), undefined);
});

Deno.test("collectSinks gathers every factory's sinks into a fresh table", () => {
  const sink = (name: string): Sink => ({
    name,
    send: () => Promise.resolve({ outcome: "delivered" }),
  });
  const factory = (name: string, schemes: string[]): TransportFactory => ({
    name,
    handlesOnComplete: false,
    defaultAckMode: "on-persist",
    spawn: () => ({ stop: () => Promise.resolve() }),
    registerSinks: (sinks) => schemes.forEach((s) => sinks.register(sink(s))),
  });
  const factories = new Registry<TransportFactory>("transport");
  factories.register(factory("web", ["http", "https"]));
  factories.register(factory("queue", ["amqp"]));
  const sinks = collectSinks(factories);
  assert.deepEqual(sinks.names(), ["amqp", "http", "https"]);
  // Each call builds its own table: engines never share sink state.
  assert.notEqual(collectSinks(factories), sinks);
});
