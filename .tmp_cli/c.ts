import { parseConfigFile } from "../src/cli/config.ts";
for (const t of ['{"maxTurns": 0}', '{"modle": "x"}', '{"sandbox":"nope"}', '{"tools":[1]}', '[1]', '{bad', '{"headers":{"a":1}}', '{"model":"a","maxTurns":3}'])
  console.log(JSON.stringify(parseConfigFile("/p/config.json", t)));
