// A scripted OpenAI-compatible model for the real-client checks (Claude Code, Codex CLI, the SDKs'
// tool round trips). Asked to run "the marker command" with a shell tool on offer, it calls that
// tool; asked about the weather with get_weather on offer, it calls get_weather; once the
// conversation holds a tool's result it answers with a sentence quoting it; anything else gets a
// plain hello. Streams when asked to, answers whole otherwise; at /v1/responses in OpenAI's
// Responses API (scripted-responses.mjs), as an upstream with responses_api is asked. Stands in for the model only:
// everything between the client and it is Switchboard.
// Usage: node scripted-model.mjs PORT [REQUEST_LOG]   (REQUEST_LOG: every request body, one per line;
// the proxy's bodiless health probes are not logged, so its last line is the model's last request)
import fs from "node:fs";
import http from "node:http";
import { answerResponses, asChatRequest } from "./scripted-responses.mjs";

const port = Number(process.argv[2]);
const requestLog = process.argv[3];
export const marker = "switchboard-tool-check";

// The shell tools clients declare, and the arguments that make each of them print the marker.
const shellTools = {
  Bash: { command: `echo ${marker}`, description: "Print a marker" },                 // Claude Code
  shell: { command: ["bash", "-lc", `echo ${marker}`] },                              // Codex CLI
  shell_command: { command: `echo ${marker}` },                                       // Codex CLI, newer
  exec_command: { cmd: `echo ${marker}` },                                            // Codex CLI, unified exec
};

// What the model says next: a tool call {name, arguments} or text.
function nextTurn(request) {
  const messages = request.messages ?? [];
  const toolResult = [...messages].reverse().find((m) => m.role === "tool");
  if (toolResult) {
    const output = typeof toolResult.content === "string" ? toolResult.content : JSON.stringify(toolResult.content);
    return { text: `The command printed: ${output.includes(marker) ? marker : output.trim()}` };
  }
  const offered = new Set((request.tools ?? []).map((t) => t.function?.name));
  const asked = JSON.stringify(messages);
  if (asked.includes("marker command")) {
    const name = Object.keys(shellTools).find((n) => offered.has(n));
    if (name)
      return { call: { id: "call_sb1", name, arguments: JSON.stringify(shellTools[name]) } };
  }
  if (asked.includes("weather") && offered.has("get_weather"))
    return { call: { id: "call_sb2", name: "get_weather", arguments: JSON.stringify({ city: "Hanoi" }) } };
  return { text: "hello from the scripted model" };
}

const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function chunk(delta, finish = null) {
  return `data: ${JSON.stringify({ id: "chatcmpl-sb", object: "chat.completion.chunk", created: 1, model: "scripted",
                                   choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function streamed(res, turn) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(chunk({ role: "assistant", content: "" }));
  if (turn.call) {
    res.write(chunk({ tool_calls: [{ index: 0, id: turn.call.id, type: "function", function: { name: turn.call.name, arguments: "" } }] }));
    // The arguments in two pieces, as real models send them.
    const half = Math.floor(turn.call.arguments.length / 2);
    for (const piece of [turn.call.arguments.slice(0, half), turn.call.arguments.slice(half)])
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
    res.write(chunk({}, "tool_calls"));
  } else {
    res.write(chunk({ content: turn.text }));
    res.write(chunk({}, "stop"));
  }
  res.write(`data: ${JSON.stringify({ id: "chatcmpl-sb", object: "chat.completion.chunk", created: 1, model: "scripted", choices: [], usage })}\n\n`);
  res.end("data: [DONE]\n\n");
}

function whole(res, turn) {
  const message = turn.call
    ? { role: "assistant", content: null,
        tool_calls: [{ id: turn.call.id, type: "function", function: { name: turn.call.name, arguments: turn.call.arguments } }] }
    : { role: "assistant", content: turn.text };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ id: "chatcmpl-sb", object: "chat.completion", created: 1, model: "scripted", usage,
                           choices: [{ index: 0, message, finish_reason: turn.call ? "tool_calls" : "stop" }] }));
}

http.createServer((req, res) => {
  let body = "";
  req.on("data", (piece) => { body += piece; });
  req.on("end", () => {
    if (requestLog && body)
      fs.appendFileSync(requestLog, body.replace(/\n/g, " ") + "\n");
    const request = JSON.parse(body || "{}");
    if (req.url.endsWith("/responses")) {
      answerResponses(res, request, nextTurn(asChatRequest(request)));
      return;
    }
    const turn = nextTurn(request);
    if (request.stream)
      streamed(res, turn);
    else
      whole(res, turn);
  });
}).listen(port, "127.0.0.1");
