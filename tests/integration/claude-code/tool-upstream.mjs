// A scripted OpenAI-compatible provider for the Claude Code check: asked to run "the marker command"
// it answers with a Bash tool call and, once the conversation holds the tool's result, with a
// sentence quoting it; anything else gets a plain hello.
// Stands in for the model only; everything between Claude Code and it is Switchboard.
// Usage: node tool-upstream.mjs PORT
import http from "node:http";

const port = Number(process.argv[2]);
const marker = "switchboard-tool-check";

function chunk(delta, finish = null) {
  return `data: ${JSON.stringify({ id: "chatcmpl-cc", object: "chat.completion.chunk", created: 1, model: "scripted",
                                   choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

http.createServer((req, res) => {
  let body = "";
  req.on("data", (piece) => { body += piece; });
  req.on("end", () => {
    const request = JSON.parse(body || "{}");
    const messages = request.messages ?? [];
    const toolResult = messages.find((m) => m.role === "tool");
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(chunk({ role: "assistant", content: "" }));
    if (toolResult) {
      const output = typeof toolResult.content === "string" ? toolResult.content : JSON.stringify(toolResult.content);
      res.write(chunk({ content: `The command printed: ${output.trim()}` }));
      res.write(chunk({}, "stop"));
    } else if (JSON.stringify(messages).includes("marker command") && (request.tools ?? []).some((t) => t.function?.name === "Bash")) {
      res.write(chunk({ tool_calls: [{ index: 0, id: "call_cc1", type: "function",
                                       function: { name: "Bash", arguments: "" } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ command: `echo ${marker}`,
                                                                                          description: "Print a marker" }) } }] }));
      res.write(chunk({}, "tool_calls"));
    } else {
      res.write(chunk({ content: "hello from the scripted model" }));
      res.write(chunk({}, "stop"));
    }
    res.write(`data: ${JSON.stringify({ id: "chatcmpl-cc", object: "chat.completion.chunk", created: 1, model: "scripted",
                                        choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`);
    res.end("data: [DONE]\n\n");
  });
}).listen(port, "127.0.0.1");
