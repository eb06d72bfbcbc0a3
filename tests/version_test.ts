import assert from "node:assert/strict";
import { VERSION } from "../src/version.ts";

Deno.test("VERSION matches the version in deno.json", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.equal(VERSION, config.version);
});
