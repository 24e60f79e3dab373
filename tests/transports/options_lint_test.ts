/**
 * A queue channel's options are checked at lint and deploy by its own
 * transport: a mistake a consumer would refuse the channel for is refused
 * when the package is sealed, naming the channel and the option.
 */
import assert from "node:assert/strict";
import { transports } from "../../engine/core/transport.ts";
import { readPackageDir, sealPackage } from "../../engine/package/mod.ts";
import "../../io/codecs/mod.ts";
import "../../io/secrets/mod.ts";
import "../../io/transports/mod.ts";

Deno.test("a kafka channel with a wrong sasl mechanism is refused at lint, naming the option", async () => {
  const read = await readPackageDir(
    new URL("../fixtures/runtime/kafka_channel", import.meta.url).pathname,
  );
  const orders = '      brokers: env:SUTRA_TEST_KAFKA_BROKERS\n      topic: "@T@.orders"\n';
  const sasl =
    "      sasl:\n        mechanism: gssapi\n        username: env:U\n        password: env:P\n";
  const files = new Map<string, Uint8Array>();
  for (const [name, bytes] of read.files!) {
    const text = new TextDecoder().decode(bytes).replace(orders, `${orders}${sasl}`)
      .replaceAll("@T@", "lint").replaceAll("@ACK@", "on-persist")
      .replaceAll("@SINGLETON@", "false");
    files.set(name, new TextEncoder().encode(text));
  }
  const sealed = await sealPackage(files, { transports });
  assert.equal(sealed.archive, undefined);
  assert.deepEqual(
    sealed.diagnostics.map((d) => [d.code, d.attributes?.channel, d.attributes?.option]),
    [["SUTRA.BROKER.OPTIONS_INVALID", "kf-orders", "sasl.mechanism"]],
  );
  assert.ok(sealed.diagnostics[0].source, "the diagnostic points into channels.yaml");
});
