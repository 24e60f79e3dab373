/**
 * The console page: its HTML shell, stylesheet and script. Plain browser
 * JavaScript, no build step: hash routes (`#/instances`, `#/instance/ID`,
 * `#/incidents`, `#/tasks`, `#/deployments`) render from the admin API's JSON, every
 * value through `textContent` (never as markup), and the diagram through
 * the vendored bpmn-js viewer.
 *
 * @module
 */

/** The page shell. */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sutra console</title>
<link rel="stylesheet" href="/console/vendor/diagram-js.css">
<link rel="stylesheet" href="/console/vendor/bpmn-js.css">
<link rel="stylesheet" href="/console/app.css">
</head>
<body>
<header>
  <strong>Sutra</strong>
  <nav>
    <a href="#/instances">Instances</a>
    <a href="#/incidents">Incidents</a>
    <a href="#/tasks">Tasks</a>
    <a href="#/deployments">Deployments</a>
  </nav>
  <form id="key-form">
    <input id="key" type="password" placeholder="admin API key" autocomplete="off">
    <button type="submit">Use key</button>
  </form>
</header>
<main id="view"></main>
<div id="message" role="status"></div>
<script src="/console/vendor/bpmn-viewer.production.min.js"></script>
<script src="/console/app.js"></script>
</body>
</html>
`;

/** The page's own styles; the diagram markers are what the instance page adds to nodes. */
export const CONSOLE_CSS =
  `body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d1d1f; }
header { display: flex; gap: 1.5em; align-items: center; padding: .6em 1em; background: #22313f; color: #fff; }
header a { color: #cfe3ff; margin-right: 1em; }
header form { margin-left: auto; }
main { padding: 1em; }
table { border-collapse: collapse; width: 100%; margin: .5em 0 1em; }
th, td { text-align: left; padding: .25em .6em; border-bottom: 1px solid #ddd; vertical-align: top; }
th { background: #f3f5f7; }
form.filters { display: flex; flex-wrap: wrap; gap: .5em; margin-bottom: .5em; }
fieldset { margin: .5em 0; }
form.task label { display: block; margin: .3em 0; }
#diagram { height: 420px; border: 1px solid #ccc; margin: .5em 0; }
#message { position: fixed; bottom: 1em; right: 1em; max-width: 40em; }
#message:not(:empty) { background: #fff3cd; border: 1px solid #e0c060; padding: .6em; }
.status-FAILED { color: #b00020; font-weight: 600; }
.sutra-waiting .djs-visual > :nth-child(1) { stroke: #e68a00 !important; stroke-width: 4px !important; fill: #fff4e0 !important; }
.sutra-completed .djs-visual > :nth-child(1) { stroke: #2e7d32 !important; }
.sutra-failed .djs-visual > :nth-child(1) { stroke: #b00020 !important; stroke-width: 4px !important; fill: #fdecee !important; }
`;

/** The page's script. */
export const CONSOLE_JS = `"use strict";
(() => {
  const view = document.getElementById("view");
  const message = document.getElementById("message");
  const keyInput = document.getElementById("key");
  keyInput.value = sessionStorage.getItem("sutra.key") || "";
  document.getElementById("key-form").addEventListener("submit", (e) => {
    e.preventDefault();
    sessionStorage.setItem("sutra.key", keyInput.value);
    route();
  });

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c ?? ""));
    return node;
  }

  function table(headings, rows) {
    return el("table", {}, el("thead", {}, el("tr", {}, ...headings.map((h) => el("th", {}, h)))),
      el("tbody", {}, ...rows.map((cells) => el("tr", {}, ...cells.map((c) => el("td", {}, c))))));
  }

  async function api(method, path, body) {
    const headers = {};
    const key = sessionStorage.getItem("sutra.key");
    if (key) headers["x-api-key"] = key;
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const type = response.headers.get("content-type") || "";
    const data = type.includes("json") ? await response.json() : await response.text();
    if (!response.ok) {
      const diagnostics = (data && data.diagnostics) || [];
      throw new Error(diagnostics.map((d) => d.code + ": " + d.message).join("\\n") || String(response.status));
    }
    return data;
  }

  function say(text) {
    message.textContent = text;
  }

  // A button's action: a refusal is shown, never lost in the console.
  const act = (run) => () => run().catch((error) => say(error.message));

  const link = (href, text) => el("a", { href }, text);

  async function instances(params) {
    const form = el("form", { class: "filters" });
    const fields = ["process", "status", "deployment", "alias", "failureCode"];
    for (const f of fields) form.append(el("input", { name: f, placeholder: f, value: params.get(f) || "" }));
    form.append(el("button", { type: "submit" }, "Search"));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const q = new URLSearchParams();
      for (const f of fields) if (form.elements[f].value) q.set(f, form.elements[f].value);
      location.hash = "#/instances?" + q;
    });
    const page = await api("GET", "/admin/instances?" + params);
    const rows = page.instances.map((i) => [
      link("#/instance/" + encodeURIComponent(i.instanceId), i.instanceId),
      el("span", { class: "status-" + i.status }, i.status),
      i.processId, i.deploymentId.slice(0, 12), i.createdAt,
      i.failure ? i.failure.code + (i.failure.node ? " at " + i.failure.node : "") : "",
    ]);
    const parts = [el("h1", {}, "Instances"), form,
      table(["Instance", "Status", "Process", "Deployment", "Started", "Failure"], rows)];
    if (page.next) {
      const q = new URLSearchParams(params);
      q.set("cursor", page.next);
      parts.push(link("#/instances?" + q, "Next page"));
    }
    view.replaceChildren(...parts);
  }

  async function instance(id) {
    const i = await api("GET", "/admin/instances/" + encodeURIComponent(id));
    const actions = el("p", {});
    if (i.status === "FAILED") {
      actions.append(el("button", { id: "retry", onclick: act(async () => {
        await api("POST", "/admin/instances/" + encodeURIComponent(id) + "/retry");
        await route();
        say("retrying " + id);
      }) }, "Retry"));
    }
    if (!["COMPLETED", "TERMINATED"].includes(i.status)) {
      actions.append(el("button", { id: "cancel", onclick: act(async () => {
        await api("POST", "/admin/instances/" + encodeURIComponent(id) + "/cancel");
        await route();
      }) }, "Cancel"));
    }
    const vars = Object.entries(i.variables || {}).map(([k, v]) => [k, v + (i.redacted && i.redacted[k] ? " (" + i.redacted[k] + ")" : "")]);
    const diagramBox = el("div", { id: "diagram" });
    const historyBox = el("div", {});
    view.replaceChildren(
      el("h1", {}, "Instance " + i.instanceId),
      table(["Status", "Process", "Deployment", "Started", "Failure"], [[
        el("span", { class: "status-" + i.status, id: "status" }, i.status), i.processId, i.deploymentId,
        i.createdAt, i.failure ? i.failure.code + " at " + (i.failure.node || "?") + ": " + (i.failure.detail || "") : "",
      ]]),
      actions, diagramBox,
      el("h2", {}, "Waiting at"), table(["Node", "Kind", "Channel"], i.waits.map((w) => [w.node, w.kind, w.channel || ""])),
      el("h2", {}, "Variables"), table(["Name", "Value"], vars),
      el("h2", {}, "Aliases"), table(["Name", "Value", "Live"], i.aliases.map((a) => [a.name, a.value, a.live ? "yes" : "no"])),
      el("h2", {}, "History"), historyBox,
    );
    const xml = await api("GET", "/admin/deployments/" + encodeURIComponent(i.deploymentId) + "/processes/" + encodeURIComponent(i.processId) + "/diagram");
    const viewer = new BpmnJS({ container: diagramBox });
    await viewer.importXML(xml);
    const canvas = viewer.get("canvas");
    const registry = viewer.get("elementRegistry");
    canvas.zoom("fit-viewport");
    const mark = (node, marker) => { if (registry.get(node)) canvas.addMarker(node, marker); };
    for (const node of i.completed || []) mark(node, "sutra-completed");
    for (const w of i.waits) mark(w.node, "sutra-waiting");
    if (i.failure && i.failure.node) mark(i.failure.node, "sutra-failed");
    diagramBox.dataset.ready = "true";
    const history = await api("GET", "/admin/instances/" + encodeURIComponent(id) + "/history");
    historyBox.replaceChildren(history.events.length === 0 && history.note ? el("p", {}, history.note) :
      table(["#", "Event", "Node", "At"], history.events.map((e) => [String(e.seq), e.type, e.node || "", e.at])));
  }

  async function incidents() {
    const data = await api("GET", "/admin/incidents");
    const rows = data.incidents.map((x) => [x.at, x.kind, x.code,
      x.instanceId ? link("#/instance/" + encodeURIComponent(x.instanceId), x.instanceId) : "",
      x.node || "", x.message || "",
      x.kind === "instance" ? el("button", { class: "retry", onclick: act(async () => {
        await api("POST", "/admin/instances/" + encodeURIComponent(x.instanceId) + "/retry");
        await route();
        say("retrying " + x.instanceId);
      }) }, "Retry") : ""]);
    view.replaceChildren(el("h1", {}, "Incidents"),
      rows.length === 0 ? el("p", { id: "no-incidents" }, "No incidents.") :
        table(["At", "Kind", "Code", "Instance", "Node", "Message", ""], rows));
  }

  // A form field per schema node; every input names its JSON path and type.
  function field(schema, path, label, prefill, required) {
    schema = schema || {};
    const props = schema.properties;
    if (props && typeof props === "object") {
      const set = el("fieldset", {}, el("legend", {}, label || "message"));
      const needed = new Set(schema.required || []);
      for (const [name, sub] of Object.entries(props)) {
        set.append(field(sub, path ? path + "." + name : name, name, prefill, needed.has(name)));
      }
      return set;
    }
    const attrs = { "data-path": path, name: path };
    if (required) attrs.required = "";
    let input;
    if (Array.isArray(schema.enum)) {
      input = el("select", attrs, ...schema.enum.map((v) => el("option", { value: JSON.stringify(v) }, String(v))));
      input.dataset.type = "json";
    } else if (schema.type === "boolean") {
      input = el("input", { ...attrs, type: "checkbox" });
      input.dataset.type = "boolean";
    } else if (schema.type === "number" || schema.type === "integer") {
      input = el("input", { ...attrs, type: "number", step: "any" });
      input.dataset.type = "number";
    } else if (schema.type === "array" || schema.type === "object") {
      input = el("textarea", attrs);
      input.dataset.type = "json";
    } else {
      input = el("input", { ...attrs, type: "text" });
      input.dataset.type = "string";
    }
    if (prefill[path] !== undefined) input.value = prefill[path];
    return el("label", {}, (label || path) + (required ? " *" : "") + " ", input, el("br", {}));
  }

  function collect(form) {
    const raw = form.querySelector("[data-raw]");
    if (raw) return JSON.parse(raw.value);
    const body = {};
    for (const input of form.querySelectorAll("[data-path]")) {
      const type = input.dataset.type;
      if (type !== "boolean" && input.value === "") continue;
      const value = type === "boolean" ? input.checked : type === "number" ? Number(input.value)
        : type === "json" ? JSON.parse(input.value) : input.value;
      const keys = input.dataset.path.split(".");
      let at = body;
      for (const k of keys.slice(0, -1)) at = at[k] = at[k] || {};
      at[keys[keys.length - 1]] = value;
    }
    return body;
  }

  async function tasks() {
    const data = await api("GET", "/admin/tasks");
    const cards = data.tasks.map((t) => {
      const form = el("form", { class: "task", "data-instance": t.instanceId });
      if (t.schema) form.append(field(t.schema, "", t.channel, t.prefill, true));
      else {
        // No schema to build fields from: the message as JSON, its correlation values filled in.
        const draft = {};
        for (const [path, value] of Object.entries(t.prefill)) {
          const keys = path.split(".");
          let at = draft;
          for (const k of keys.slice(0, -1)) at = at[k] = at[k] || {};
          at[keys[keys.length - 1]] = value;
        }
        form.append(el("label", {}, "message (JSON) ", el("textarea", { "data-raw": "", rows: "6", cols: "60" }, JSON.stringify(draft, null, 2))));
      }
      const credential = t.auth ? el("input", { type: "password", name: "credential", placeholder: t.auth.header || t.auth.scheme }) : null;
      if (credential) form.append(el("label", {}, "channel credential (" + (t.auth.header || t.auth.scheme) + ") ", credential));
      form.append(el("button", { type: "submit" }, "Send on " + t.channel));
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        act(async () => {
          const headers = { "content-type": "application/json" };
          if (credential && t.auth.scheme === "apikey") headers[t.auth.header] = credential.value;
          if (credential && t.auth.scheme === "bearer") headers.authorization = "Bearer " + credential.value;
          if (credential && t.auth.scheme === "basic") headers.authorization = "Basic " + btoa(credential.value);
          const response = await fetch(t.path, { method: t.method, headers, body: JSON.stringify(collect(form)) });
          const answer = await response.json().catch(() => ({}));
          if (!response.ok) {
            throw new Error((answer.diagnostics || []).map((d) => d.code + ": " + d.message).join("\\n") || String(response.status));
          }
          await route();
          say("sent on " + t.channel);
        })();
      });
      return el("section", {}, el("h2", {}, (t.name || t.node) + " — "),
        link("#/instance/" + encodeURIComponent(t.instanceId), t.instanceId),
        el("p", {}, "waiting since " + t.waitingSince), form);
    });
    view.replaceChildren(el("h1", {}, "Tasks"), ...(cards.length ? cards : [el("p", { id: "no-tasks" }, "Nobody is waited for.")]));
  }

  async function deployments() {
    const data = await api("GET", "/admin/deployments");
    view.replaceChildren(el("h1", {}, "Deployments"), table(
      ["Deployment", "Slot", "Status", "Live", "Failed", "Created"],
      data.deployments.map((d) => [
        link("#/instances?deployment=" + encodeURIComponent(d.deploymentId), d.deploymentId.slice(0, 12)),
        d.slot, d.status, String(d.instances.live), String(d.instances.failed), d.createdAt,
      ]),
    ));
  }

  async function route() {
    const hash = location.hash.slice(1) || "/instances";
    const [path, query] = hash.split("?");
    say("");
    try {
      if (path.startsWith("/instance/")) await instance(decodeURIComponent(path.slice(10)));
      else if (path === "/incidents") await incidents();
      else if (path === "/deployments") await deployments();
      else if (path === "/tasks") await tasks();
      else await instances(new URLSearchParams(query || ""));
    } catch (error) {
      say(error.message);
    }
  }

  addEventListener("hashchange", route);
  route();
})();
`;
