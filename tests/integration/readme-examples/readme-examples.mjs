// The README's examples, run as written against a headless Switchboard on its embedded default (the
// demo configuration): every JavaScript block that makes a call runs with the official SDK it
// imports, only the address changed to the test's port, and every model another block names (the
// Python snippet, the Codex CLI configuration, Claude Code's variables) and every model the README
// says the demo answers is asked for once. A new user's first call must not be a 404.
// Usage: node readme-examples.mjs README.md PORT OPENAI_SDK_DIR ANTHROPIC_SDK_DIR
import { readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";

const [readmePath, port, openaiDir, anthropicDir] = process.argv.slice(2);
const readme = readFileSync(readmePath, "utf8");
const origin = `http://127.0.0.1:${port}`;
let failures = 0;

function check(condition, message) {
  console.log(`${condition ? "ok" : "FAIL"}: ${message}`);
  if (!condition) failures += 1;
}

const blocks = [...readme.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2] }));

// 1. The JavaScript examples, as written.
const scripts = blocks.filter((b) => b.lang === "js" && /\bcreate\(|\bstream\(/.test(b.code));
check(scripts.length >= 3, `the README has its JavaScript examples (${scripts.length})`);
for (const [i, block] of scripts.entries()) {
  const anthropic = block.code.includes("@anthropic-ai/sdk");
  const dir = anthropic ? anthropicDir : openaiDir;
  // ES modules resolve packages next to the script, so it runs from its SDK's directory.
  const file = join(dir, `readme-example-${i}.mjs`);
  writeFileSync(file, block.code.replaceAll("http://127.0.0.1:8400", origin));
  const first = block.code.split("\n").find((line) => line.includes("create(") || line.includes("stream(")).trim();
  try {
    execFileSync("node", [file], { stdio: ["ignore", "ignore", "pipe"], timeout: 30000 });
    check(true, `README example answers: ${first}`);
  } catch (error) {
    check(false, `README example fails: ${first}\n${error.stderr ?? error.message}`);
  }
}

// 2. Every model any example or the demo's description names.
const models = new Set();
for (const block of blocks)
  for (const m of block.code.matchAll(/\bmodel\s*[=:]\s*"([^"]+)"|ANTHROPIC_(?:DEFAULT_HAIKU_)?MODEL=(\S+)/g))
    models.add(m[1] ?? m[2]);
const promise = readme.match(/The demo configuration\s+answers the models ([^.]*)\./);
check(promise !== null, "the README says which models the demo answers");
for (const m of (promise?.[1] ?? "").matchAll(/`([^`]+)`/g)) models.add(m[1]);
check(models.has("gpt-4o"), "the demo answers gpt-4o, the model most OpenAI examples name");
for (const model of models) {
  const response = await fetch(`${origin}/v1/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
  });
  const body = await response.text();
  check(response.status === 200, `model "${model}" answers (${response.status}${response.status === 200 ? "" : ": " + body})`);
}

// 3. A model the demo does not have: the 404 says which ones it does.
const wrong = await fetch(`${origin}/v1/chat/completions`, {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ model: "gpt-5-turbo", messages: [{ role: "user", content: "hi" }] }),
});
const error = (await wrong.json()).error ?? {};
check(wrong.status === 404 && error.code === "model_not_found", `an unknown model is a 404 model_not_found (${wrong.status})`);
check(/"demo"/.test(error.message ?? "") && /"gpt-4o"/.test(error.message ?? ""),
      `the 404 names the models there are: ${error.message}`);

process.exit(failures === 0 ? 0 : 1);
