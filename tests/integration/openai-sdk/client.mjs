// A real OpenAI SDK client against the proxy: the only change from talking to OpenAI is baseURL.
// Usage: node client.mjs BASE_URL MODEL
import OpenAI from "openai";

const [baseURL, model] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: "not-needed-on-loopback", maxRetries: 0, timeout: 20000 });

function check(condition, message) {
  if (!condition) {
    console.error(`FAIL: ${message}`);
    process.exit(1);
  }
  console.log(`ok: ${message}`);
}

const completion = await client.chat.completions.create({
  model,
  messages: [{ role: "user", content: "Say hello in three languages." }],
});
check(completion.object === "chat.completion", "non-stream answer is a chat.completion");
check(completion.model === model, `non-stream answer names the model the client asked for (${completion.model})`);
const text = completion.choices[0]?.message?.content ?? "";
check(text.length > 0, `non-stream answer has content (${text.length} chars)`);

const { data: streamed, response } = await client.chat.completions
  .create({ model, stream: true, stream_options: { include_usage: true },
            messages: [{ role: "user", content: "Stream something." }] })
  .withResponse();
check(response.headers.get("x-switchboard-channel") !== null, `the proxy names the channel (${response.headers.get("x-switchboard-channel")})`);
let content = "";
let chunks = 0;
let usage = null;
for await (const chunk of streamed) {
  chunks += 1;
  if (chunk.usage) usage = chunk.usage;
  content += chunk.choices[0]?.delta?.content ?? "";
}
check(chunks > 1, `stream arrived in ${chunks} chunks`);
check(content.length > 0 && !content.includes("\uFFFD"), "streamed text is whole UTF-8 with no replacement characters");
check(usage !== null && usage.completion_tokens > 0, "usage arrives in the final chunk when asked for");

const models = await client.models.list();
check(models.data.some((m) => m.id === model), "the model list names the route");

try {
  await client.chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "x" }] });
  check(false, "an unknown model is refused");
} catch (error) {
  check(error instanceof OpenAI.NotFoundError, `an unknown model gives the SDK's NotFoundError (${error.status})`);
}
console.log("all SDK checks passed");
