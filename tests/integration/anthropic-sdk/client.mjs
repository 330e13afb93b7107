// A real Anthropic SDK client against the proxy: the only change from talking to Anthropic is
// baseURL. The demo configuration's upstreams are OpenAI-compatible simulators, so every answer
// here was translated both ways. Usage: node client.mjs BASE_URL MODEL
import Anthropic from "@anthropic-ai/sdk";

const [baseURL, model] = process.argv.slice(2);
const client = new Anthropic({ baseURL, apiKey: "not-needed-on-loopback", maxRetries: 0, timeout: 20000 });

function check(condition, message) {
  if (!condition) {
    console.error(`FAIL: ${message}`);
    process.exit(1);
  }
  console.log(`ok: ${message}`);
}

const message = await client.messages.create({
  model, max_tokens: 256, system: "Answer briefly.",
  messages: [{ role: "user", content: "Say hello in three languages." }],
});
check(message.type === "message" && message.role === "assistant", "messages.create answers a message");
check(message.model === model, `it names the model the client asked for (${message.model})`);
check(message.content[0]?.type === "text" && message.content[0].text.length > 0, `it has text (${message.content[0]?.text?.length} chars)`);
check(message.stop_reason === "end_turn", `stop_reason end_turn (${message.stop_reason})`);
check(message.usage.output_tokens > 0, `usage counted (${JSON.stringify(message.usage)})`);

const stream = client.messages.stream({ model, max_tokens: 256, messages: [{ role: "user", content: "Stream something." }] });
let streamed = "";
stream.on("text", (piece) => { streamed += piece; });
const final = await stream.finalMessage();
check(streamed.length > 0 && !streamed.includes("\uFFFD"), `messages.stream delivered whole characters (${streamed.length} chars)`);
check(final.content[0]?.text === streamed, "the SDK's assembled message equals the text events");
check(final.stop_reason === "end_turn" && final.usage.output_tokens > 0, "the stream ended with a stop reason and usage");

// A tool loop as Claude Code runs it: the assistant's tool_use and the user's tool_result reach an
// OpenAI-compatible upstream as tool_calls and a tool message, and the answer comes back as text.
const weather = { name: "get_weather", description: "The weather in a city.",
                  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
const afterTool = await client.messages.create({
  model, max_tokens: 256, tools: [weather],
  messages: [
    { role: "user", content: "What is the weather in Hanoi?" },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Hanoi" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "31 °C, humid" }] },
  ],
});
check(afterTool.content.some((b) => b.type === "text"), "a tool_result turn is answered");

try {
  await client.messages.create({ model: "no-such-route", max_tokens: 16, messages: [{ role: "user", content: "x" }] });
  check(false, "an unknown model is refused");
} catch (e) {
  check(e instanceof Anthropic.NotFoundError && e.status === 404, `an unknown model is the SDK's NotFoundError (${e.constructor.name})`);
}
try {
  await client.messages.create({ model, messages: [{ role: "user", content: "x" }] });
  check(false, "a request without max_tokens is refused");
} catch (e) {
  check(e instanceof Anthropic.BadRequestError && /max_tokens/.test(e.message), `no max_tokens is a BadRequestError naming it`);
}
const count = await client.messages.countTokens({ model, messages: [{ role: "user", content: "How many tokens is this?" }] });
check(count.input_tokens > 0, `count_tokens answers (${count.input_tokens})`);
