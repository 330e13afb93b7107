// The official OpenAI SDK's Responses API against the proxy, the only change from talking to
// OpenAI being baseURL. Each model `m-<dialect>` routes to a simulated provider of that dialect,
// so every answer was translated both ways; `m-openai_responses` to the simulated OpenAI provider
// with responses_api, which gets the request nearly as sent and answers in the Responses API
// itself; `m-tools` (and `m-tools-responses`, the same with responses_api) to a scripted model that
// calls tools.
// Phase "first" leaves a stored response's id in STATE_FILE; phase "continue" (run after the proxy
// restarted on the same database) continues that conversation with previous_response_id.
// Usage: node client.mjs BASE_URL first|continue STATE_FILE
import fs from "node:fs";
import OpenAI from "openai";

const [baseURL, phase, stateFile] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: "not-needed-on-loopback", maxRetries: 0, timeout: 20000 });
const dialects = ["openai_compat", "anthropic", "gemini", "dashscope", "ernie", "openai_responses"];
// The simulator's own item ids: an answer its Responses API wrote, not one the proxy translated.
const untranslated = (response) => response.output.length > 0 && response.output[0].id.startsWith("msg_sim");

function check(condition, message) {
  if (!condition) {
    console.error(`FAIL: ${message}`);
    process.exit(1);
  }
  console.log(`ok: ${message}`);
}

async function createInEveryDialect() {
  for (const dialect of dialects) {
    const model = `m-${dialect}`;
    const response = await client.responses.create({ model, instructions: "Answer briefly.", input: "Say hello in three languages." });
    check(response.object === "response" && response.status === "completed", `${dialect}: responses.create completes (${response.status})`);
    check(response.id.startsWith("resp_") && response.model === model, `${dialect}: a resp_ id and the model asked for (${response.model})`);
    check(response.output_text.length > 0 && !response.output_text.includes("\uFFFD"), `${dialect}: output_text (${response.output_text.length} chars)`);
    check(response.usage.output_tokens > 0 && response.usage.input_tokens_details !== undefined
          && response.usage.output_tokens_details !== undefined, `${dialect}: usage with its details ${JSON.stringify(response.usage)}`);
    check(untranslated(response) === (dialect === "openai_responses"), `${dialect}: ${untranslated(response) ? "the upstream's own response" : "translated"}`);
  }
}

async function streamInEveryDialect() {
  for (const dialect of dialects) {
    const model = `m-${dialect}`;
    const stream = client.responses.stream({ model, input: "Stream something long." });
    let text = "";
    let sequence = -1;
    let ordered = true;
    const itemIds = new Set();
    const types = [];
    for await (const event of stream) {
      types.push(event.type);
      ordered &&= event.sequence_number === sequence + 1;
      sequence = event.sequence_number;
      if (event.type === "response.output_text.delta") {
        text += event.delta;
        itemIds.add(event.item_id);
      }
    }
    const final = await stream.finalResponse();
    check(types[0] === "response.created" && types[1] === "response.in_progress" && types.at(-1) === "response.completed",
          `${dialect}: created, in_progress … completed (${types.length} events)`);
    check(ordered, `${dialect}: sequence_number counts up from 0 without gaps`);
    check(itemIds.size === 1, `${dialect}: one stable item id across the deltas`);
    check(text.length > 0 && !text.includes("\uFFFD"), `${dialect}: whole characters though the upstream cut them (${text.length} chars)`);
    check(final.output_text === text && final.status === "completed", `${dialect}: the SDK's final response equals the deltas`);
    check(untranslated(final) === (dialect === "openai_responses") && !final.id.startsWith("resp_sim"),
          `${dialect}: Switchboard's response id (${final.id}), ${untranslated(final) ? "the upstream's own events" : "translated"}`);
  }
}

async function functionCallRoundTrip() {
  const tools = [{ type: "function", name: "get_weather", description: "The weather in a city.", strict: true,
                   parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false } }];
  for (const [model, stream] of [["m-tools", false], ["m-tools", true], ["m-tools-responses", false], ["m-tools-responses", true]]) {
    const ask = { model, tools, input: "What is the weather in Hanoi?" };
    const first = stream ? await client.responses.stream(ask).finalResponse() : await client.responses.create(ask);
    const call = first.output.find((item) => item.type === "function_call");
    check(call && call.name === "get_weather" && JSON.parse(call.arguments).city === "Hanoi",
          `${model} ${stream ? "stream" : "create"}: the model's call comes back as a function_call item (${JSON.stringify(call)})`);
    const answer = await client.responses.create({
      model, tools, previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output: "31 °C, humid" }],
    });
    check(answer.output_text.includes("31 °C, humid"), `${model} ${stream ? "stream" : "create"}: the function_call_output reached the model (${answer.output_text})`);
  }
}

async function jsonSchemaOutput() {
  const response = await client.responses.create({
    model: "m-openai_compat", input: "A colour as JSON.",
    text: { format: { type: "json_schema", name: "colour", strict: true,
                      schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false } } },
  });
  check(response.status === "completed" && response.text.format.type === "json_schema", "json_schema output is accepted and echoed");
}

async function errorsAreTheSdksClasses() {
  try {
    await client.responses.create({ model: "no-such-route", input: "x" });
    check(false, "an unknown model is refused");
  } catch (e) {
    check(e instanceof OpenAI.NotFoundError, `an unknown model is the SDK's NotFoundError (${e.constructor.name})`);
  }
  try {
    await client.responses.create({ model: "m-openai_compat", input: "x", tools: [{ type: "web_search" }] });
    check(false, "a built-in tool is refused");
  } catch (e) {
    check(e instanceof OpenAI.BadRequestError && /web_search/.test(e.message), `a built-in tool is a BadRequestError naming it (${e.message})`);
  }
  try {
    await client.responses.retrieve("resp_does_not_exist");
    check(false, "an unknown response id is refused");
  } catch (e) {
    check(e instanceof OpenAI.NotFoundError, "GET of an unknown response is the SDK's NotFoundError");
  }
}

async function first() {
  await createInEveryDialect();
  await streamInEveryDialect();
  await functionCallRoundTrip();
  await jsonSchemaOutput();
  await errorsAreTheSdksClasses();
  const remembered = await client.responses.create({ model: "m-openai_compat", input: "My name is Lan. Remember it." });
  const read = await client.responses.retrieve(remembered.id);
  check(read.id === remembered.id && read.output_text === remembered.output_text, "responses.retrieve returns the stored response");
  const items = await client.responses.inputItems.list(remembered.id);
  check(items.data.length === 1 && items.data[0].type === "message", `inputItems.list returns the request's input (${items.data.length})`);
  const gone = await client.responses.create({ model: "m-openai_compat", input: "forget me" });
  await client.responses.delete(gone.id);
  try {
    await client.responses.retrieve(gone.id);
    check(false, "a deleted response is gone");
  } catch (e) {
    check(e instanceof OpenAI.NotFoundError, "a deleted response is a NotFoundError");
  }
  const unstored = await client.responses.create({ model: "m-openai_compat", input: "x", store: false });
  try {
    await client.responses.create({ model: "m-openai_compat", input: "y", previous_response_id: unstored.id });
    check(false, "store: false is not continued");
  } catch (e) {
    check(e instanceof OpenAI.NotFoundError && /previous response/i.test(e.message), "continuing a store: false response is a NotFoundError");
  }
  fs.writeFileSync(stateFile, JSON.stringify({ id: remembered.id }));
}

async function continueAfterRestart() {
  const { id } = JSON.parse(fs.readFileSync(stateFile, "utf8"));
  const next = await client.responses.create({ model: "m-tools", input: "What did I say my name was?", previous_response_id: id });
  check(next.status === "completed" && next.previous_response_id === id, `previous_response_id continues ${id} after the restart`);
  const read = await client.responses.retrieve(id);
  check(read.id === id, "the response stored before the restart is still there");
}

if (phase === "first")
  await first();
else
  await continueAfterRestart();
