import assert from "node:assert/strict";
import { type CapturedIo, captureIo } from "../tests/support/cli_io.ts";
import { runCli } from "./main.ts";

function capture(stdin: string[] = []): CapturedIo {
  return captureIo({ stdin });
}

async function withContextFile(text: string, fn: (path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/ctx.txt`, text);
    await fn(`${dir}/ctx.txt`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const run = (args: string[], c: CapturedIo) =>
  runCli(["explain", ...args], { io: c.io, programName: "sutra" });

Deno.test("explain prints the value in FEEL syntax and its type", async () => {
  const c = capture();
  assert.equal(await run(['date("2026-01-15") + duration("P10D")'], c), 0);
  assert.equal(c.out(), 'date("2026-01-25")\n  type: date\n');
});

Deno.test("explain says why a value is null", async () => {
  const c = capture();
  assert.equal(await run(['1 + "a"'], c), 0);
  assert.match(c.out(), /^null\n {2}type: Null\n {2}warning: .+/);
});

Deno.test("explain --format json carries value, FEEL rendering, type and warnings", async () => {
  const c = capture();
  assert.equal(await run(["[1, 2.50] ", "--format", "json"], c), 0);
  assert.deepEqual(JSON.parse(c.out()), {
    value: [1, 2.5],
    feel: "[1, 2.5]",
    type: "list<number>",
    warnings: [],
  });
});

Deno.test("a malformed expression is a diagnostic with line and column and exit 1", async () => {
  const c = capture();
  assert.equal(await run(["1 +\n (2"], c), 1);
  assert.match(c.err(), /^2:\d+: ERROR SUTRA\.FEEL\.PARSE: /);
  assert.equal(c.out(), "");
});

Deno.test("the context file mixes JSON and FEEL values, later lines seeing earlier ones", async () => {
  await withContextFile(
    '# a comment\namount: 150\ncurrency: "EUR"\nlimit: amount * 2\nitems: [{"qty": 2}]\n',
    async (path) => {
      const c = capture();
      assert.equal(await run(["limit - amount + items[1].qty", "--context", path], c), 0);
      assert.equal(c.out(), "152\n  type: number\n");
    },
  );
});

Deno.test("bad context file lines are all reported with their line numbers", async () => {
  await withContextFile("ok: 1\nno colon here\nbad: (1 +\nalso: nonsense\n", async (path) => {
    const c = capture();
    assert.equal(await run(["ok", "--context", path], c), 1);
    const lines = c.err().trim().split("\n");
    assert.equal(lines.length, 3);
    assert.match(lines[0], /ctx\.txt:2: ERROR SUTRA\.CLI\.CONTEXT_INVALID/);
    assert.match(lines[1], /ctx\.txt:3: .*'bad'/);
    assert.match(lines[2], /ctx\.txt:4: .*'also'/);
  });
});

Deno.test("without an expression explain reads stdin until :quit", async () => {
  const c = capture(["1 + 1", "", 'upper case("x")', ":quit", "2 + 2"]);
  assert.equal(await run([], c), 0);
  assert.equal(c.out(), '2\n  type: number\n"X"\n  type: string\n');
});

Deno.test("explain rejects bad flags and extra arguments with usage", async () => {
  for (const args of [["1", "2"], ["--format", "xml", "1"], ["--colour", "1"]]) {
    const c = capture();
    assert.equal(await run(args, c), 2, args.join(" "));
    assert.match(c.err(), /Usage: sutra explain/);
  }
});

Deno.test("key=value lines: numbers and booleans coerce, FEEL works, other text stays a string", async () => {
  await withContextFile(
    [
      "amount=150",
      "frozen = false",
      "owner=alice smith",
      'quoted="42"',
      'due=date("2026-03-01")',
      "limit=amount * 2",
      "empty=",
      "url=http://x.test/a:b",
    ].join("\n"),
    async (path) => {
      const c = capture();
      const expression = "[limit - amount, frozen, owner, quoted, due, empty, url]";
      assert.equal(await run([expression, "--context", path, "--format", "json"], c), 0, c.err());
      assert.deepEqual(
        JSON.parse(c.out()).feel,
        '[150, false, "alice smith", "42", ' +
          'date("2026-03-01"), "", "http://x.test/a:b"]',
      );
    },
  );
});

Deno.test("-v says how each context value was read, on stderr", async () => {
  await withContextFile('n=7\nname=bob\nwhen: date("2026-01-01")\n', async (path) => {
    const c = capture();
    assert.equal(await run(["n", "--context", path, "-v"], c), 0);
    assert.equal(c.out(), "7\n  type: number\n");
    assert.equal(
      c.err(),
      "INFO explain: context n = 7 (number, line 1, read as JSON)\n" +
        'INFO explain: context name = "bob" (string, line 2, read as text)\n' +
        'INFO explain: context when = date("2026-01-01") (date, line 3, read as FEEL)\n',
    );
  });
});

Deno.test("bad lines of both forms, and a name set twice, are all reported at once", async () => {
  await withContextFile("a=1\n=2\nb: (1 +\njust words\na: 3\nc=4\n", async (path) => {
    const c = capture();
    assert.equal(await run(["c", "--context", path], c), 1);
    assert.equal(c.out(), "");
    const lines = c.err().trim().split("\n");
    assert.equal(lines.length, 4);
    assert.match(lines[0], /ctx\.txt:2: ERROR SUTRA\.CLI\.CONTEXT_INVALID: .*'name=value'/);
    assert.match(lines[1], /ctx\.txt:3: ERROR SUTRA\.CLI\.CONTEXT_INVALID: .*'b'/);
    assert.match(lines[2], /ctx\.txt:4: .*expected 'name: value' or 'name=value'/);
    assert.match(lines[3], /ctx\.txt:5: .*'a' is already set on line 1/);
  });
});
