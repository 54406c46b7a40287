// Well behaved, in JavaScript: answers every message with {"ok": true, "echo": message}.
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  process.stdout.write(JSON.stringify({ ok: true, echo: msg, runtime: "node " + process.version }) + "\n");
});
