import assert from "node:assert/strict";
import { contentTypeFromName, familyOf } from "./mod.ts";

Deno.test("an inner extension names the content type; none or an unknown one names nothing", () => {
  assert.equal(contentTypeFromName("reply.json.hbs"), "application/json");
  assert.equal(contentTypeFromName("eu/invoices/invoice.XML.hbs"), "application/xml");
  assert.equal(contentTypeFromName("page.html.hbs"), "text/html; charset=utf-8");
  assert.equal(contentTypeFromName("export.csv.hbs"), "text/csv; charset=utf-8");
  assert.equal(contentTypeFromName("config.yml.hbs"), "application/yaml");
  assert.equal(contentTypeFromName("transfer-result.hbs"), undefined);
  assert.equal(contentTypeFromName("v1.2/result.hbs"), undefined);
  assert.equal(contentTypeFromName("thing.weird.hbs"), undefined);
});

Deno.test("families: JSON and +json, XML, +xml and HTML, everything else text", () => {
  assert.equal(familyOf("application/json"), "json");
  assert.equal(familyOf("Application/Problem+JSON; charset=utf-8"), "json");
  assert.equal(familyOf("application/xml"), "xml");
  assert.equal(familyOf("text/xml"), "xml");
  assert.equal(familyOf("application/soap+xml"), "xml");
  assert.equal(familyOf("text/html; charset=utf-8"), "xml");
  assert.equal(familyOf("text/plain"), "text");
  assert.equal(familyOf("text/csv"), "text");
  assert.equal(familyOf("application/yaml"), "text");
});
