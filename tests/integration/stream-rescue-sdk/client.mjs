// The official OpenAI and Anthropic SDKs reading streams that their primary cuts mid-answer: each
// must read one well-formed stream (no error thrown, one finish) holding one whole answer of the
// simulator's English passage — a span repeated or lost at the splice breaks the passage's order.
// Usage: node client.mjs BASE_URL (the proxy's root; the OpenAI client adds /v1)
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";

const [root] = process.argv.slice(2);
// SimText's English passage, which the simulator's answers are runs of, word by word, round and round.
const passage =
  "Switchboard keeps two independent channels for every model, scores their health all the time " +
  "and fails over before the caller notices. When the primary refuses, traffic moves to the fallback, " +
  "and when it recovers the primary carries the load again. ";

function check(condition, message) {
  if (!condition) {
    console.error(`FAIL: ${message}`);
    process.exit(1);
  }
  console.log(`ok: ${message}`);
}

function isWholeAnswer(text) {
  return text.split(" ").filter((w) => w).length === 24 && (passage + passage + passage).includes(text);
}

const openai = new OpenAI({ baseURL: `${root}/v1`, apiKey: "not-needed-on-loopback", maxRetries: 0, timeout: 20000 });
const stream = await openai.chat.completions.create({
  model: "rescue-oa", stream: true, stream_options: { include_usage: true },
  messages: [{ role: "user", content: "Tell me about the router." }],
});
let text = "", finishes = 0, usage = null;
const ids = new Set();
for await (const chunk of stream) {
  ids.add(chunk.id);
  if (chunk.usage) usage = chunk.usage;
  text += chunk.choices[0]?.delta?.content ?? "";
  if (chunk.choices[0]?.finish_reason) finishes += 1;
}
check(finishes === 1, "OpenAI SDK: the cut stream ends once, with a finish reason");
check(ids.size === 1, "OpenAI SDK: one chunk id throughout the splice");
check(isWholeAnswer(text), `OpenAI SDK: one whole answer, nothing twice, nothing missing ("${text}")`);
check(usage && usage.completion_tokens > 0, `OpenAI SDK: usage summed over both attempts (${usage?.completion_tokens} out)`);

const anthropic = new Anthropic({ baseURL: root, apiKey: "not-needed-on-loopback", maxRetries: 0, timeout: 20000 });
const events = [];
const messageStream = anthropic.messages.stream({
  model: "claude-rescue", max_tokens: 256, messages: [{ role: "user", content: "Tell me about the router." }],
});
messageStream.on("streamEvent", (event) => events.push(event.type));
const message = await messageStream.finalMessage();
const claudeText = message.content.filter((b) => b.type === "text").map((b) => b.text).join("");
check(events.filter((t) => t === "message_start").length === 1 && events.filter((t) => t === "message_stop").length === 1,
      "Anthropic SDK: one message_start and one message_stop around the splice");
check(message.stop_reason === "end_turn", `Anthropic SDK: the message ends its turn (${message.stop_reason})`);
check(isWholeAnswer(claudeText), `Anthropic SDK: one whole answer through the passed-through stream ("${claudeText}")`);
