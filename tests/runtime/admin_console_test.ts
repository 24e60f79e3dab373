/**
 * The web console in headless Chromium (Debian's `chromium`, driven by
 * puppeteer-core) against a running engine: an operator types the admin
 * key, opens a waiting instance and finds its diagram with the waiting node
 * marked and the completed path marked, retries an incident from the
 * incidents page, and completes a user task from the task list with the
 * form built from its message's schema, sent through the task's channel. The console is off unless enabled, its page carries no
 * data without the key, and its vendored viewer is served from the tree.
 * Skipped with a notice where no Chromium is installed.
 */
import assert from "node:assert/strict";
import puppeteer from "puppeteer-core";
import { ManualClock } from "../../engine/core/mod.ts";
import { bootEngine, post, sealDir } from "./support.ts";
import { servicesRequired } from "../support/test_database.ts";
import {
  advanceTo,
  deployDir,
  pollUntil,
  startOn,
  statusOf,
  T0,
  withEngine,
} from "./timers_support.ts";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

Deno.test("the console is off unless enabled", async () => {
  const engine = await bootEngine();
  try {
    const response = await fetch(`${engine.url}/console`);
    await response.body?.cancel();
    assert.equal(response.status, 404);
  } finally {
    await engine.stop();
  }
});

Deno.test({
  name:
    "the console shows a waiting instance on its diagram, retries an incident and completes a user task",
  // CI installs Chromium (.ci/run); elsewhere the browser test skips without it.
  ignore: CHROMIUM === undefined && !servicesRequired(),
  async fn() {
    assert.ok(
      CHROMIUM,
      "Chromium is required (SUTRA_TEST_REQUIRE_SERVICES=1): apt-get install chromium",
    );
    const clock = new ManualClock(T0);
    const env = {
      SUTRA_CONSOLE_ENABLED: "true",
      SUTRA_ADMIN_AUTH_API_KEY: "env:ADMIN_KEY",
      ADMIN_KEY: "console-key",
    };
    await withEngine({ target: { url: "memory://" }, clock, env }, async (engine) => {
      await deployDir(engine, "tests/fixtures/runtime/admin_order");
      const failed = await startOn(engine, "ord-start", { orderId: "K-1" });
      await advanceTo(engine, clock, T0 + 5_000);
      const waiting = await startOn(engine, "ord-start", { orderId: "K-2" });

      // The shell and the vendored viewer need no key; the data does.
      for (
        const path of [
          "/console",
          "/console/app.js",
          "/console/vendor/bpmn-viewer.production.min.js",
        ]
      ) {
        const response = await fetch(`${engine.url}${path}`);
        await response.body?.cancel();
        assert.equal(response.status, 200, path);
        assert.match(response.headers.get("content-security-policy") ?? "", /script-src 'self'/);
      }
      const unknown = await fetch(`${engine.url}/console/vendor/..%2F..%2Fengine.ts`);
      await unknown.body?.cancel();
      assert.equal(unknown.status, 404);

      const browser = await puppeteer.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
      });
      try {
        const page = await browser.newPage();
        const consoleErrors: string[] = [];
        page.on("pageerror", (error) => consoleErrors.push(String(error)));
        await page.goto(`${engine.url}/console#/instance/${waiting}`);
        // Without the key the API refuses, and the page says so.
        await page.waitForFunction(
          'document.getElementById("message").textContent.includes("SUTRA.ADMIN.AUTH.MISSING")',
        );
        await page.type("#key", "console-key");
        await page.click("#key-form button");
        await page.waitForSelector('#diagram[data-ready="true"]');
        if (Deno.env.get("SUTRA_CONSOLE_SCREENSHOT")) {
          await page.screenshot({
            path: Deno.env.get("SUTRA_CONSOLE_SCREENSHOT")!,
            fullPage: true,
          });
        }
        const classes = (id: string) =>
          page.$eval(`.djs-element[data-element-id="${id}"]`, (e) => e.getAttribute("class") ?? "");
        assert.match(await classes("Charge"), /sutra-waiting/);
        assert.match(await classes("Start"), /sutra-completed/);
        assert.doesNotMatch(await classes("AwaitShip"), /sutra-/);
        assert.equal(await page.$eval("#status", (e) => e.textContent), "WAITING");

        await page.goto(`${engine.url}/console#/incidents`);
        await page.waitForSelector("button.retry");
        await page.click("button.retry");
        await page.waitForSelector("#no-incidents");
        assert.ok(
          await pollUntil(async () =>
            (await statusOf(engine.database, failed)).status === "RUNNING"
          ),
          "the retried instance never came back",
        );

        // The approval hold's decision, sent from the task list through its own channel.
        await engine.deployments.deploy(await sealDir("examples/approval-hold/package"));
        const request = await post(
          engine,
          "/channels/approval-request",
          { ApprovalRequest: { E2EId: "T-1", Amount: "10.00" } },
          { "x-api-key": "approval-demo-key" },
        );
        assert.equal(request.status, 200, JSON.stringify(request.body));
        const held = (request.body.instances as { instanceId: string }[])[0].instanceId;
        await page.goto(`${engine.url}/console#/tasks`);
        await page.waitForSelector(`form.task[data-instance="${held}"]`);
        const form = `form.task[data-instance="${held}"]`;
        assert.equal(
          await page.$eval(
            `${form} [data-path="ApprovalDecision.E2EId"]`,
            (e) => (e as unknown as { value: string }).value,
          ),
          "T-1",
          "the correlation value is filled in",
        );
        await page.select(`${form} [data-path="ApprovalDecision.Decision"]`, '"APPROVE"');
        await page.type(`${form} input[name="credential"]`, "approval-demo-key");
        await page.click(`${form} button[type="submit"]`);
        await page.waitForSelector("#no-tasks");
        assert.deepEqual(await statusOf(engine.database, held), {
          status: "COMPLETED",
          code: null,
        });
        assert.deepEqual(consoleErrors, []);
      } finally {
        await browser.close();
      }
    });
  },
});
