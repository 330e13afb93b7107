// The scripted model's answers in OpenAI's Responses API (POST /v1/responses), for a provider
// configured with responses_api: the same turns as its chat completions (scripted-model.mjs), as a
// response object or the Responses event stream with OpenAI's sequence numbers and item ids.
let counter = 0;

// The conversation of a Responses request in the chat shape nextTurn() reads: tool outputs as tool
// messages, everything else as it is.
export function asChatRequest(request) {
  const input = typeof request.input === "string" ? [{ role: "user", content: request.input }] : (request.input ?? []);
  const messages = input.map((item) =>
    item.type === "function_call_output" ? { role: "tool", content: item.output } : { role: item.role ?? "assistant", content: item.content ?? item });
  const tools = (request.tools ?? []).map((t) => ({ type: "function", function: { name: t.name } }));
  return { messages, tools };
}

function responseObject(request, id, status, output, usage) {
  return { id, object: "response", created_at: 1741476542, status, error: null, incomplete_details: null,
           instructions: request.instructions ?? null, max_output_tokens: null, model: request.model, output,
           parallel_tool_calls: true, previous_response_id: request.previous_response_id ?? null,
           reasoning: { effort: null, summary: null }, store: request.store ?? true, temperature: 1, text: { format: { type: "text" } },
           tool_choice: "auto", tools: request.tools ?? [], top_p: 1, truncation: "disabled", usage, user: null, metadata: {} };
}

const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5,
                output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };

function itemOf(turn, n) {
  return turn.call
    ? { id: `fc_scripted${n}`, type: "function_call", status: "completed", call_id: turn.call.id, name: turn.call.name, arguments: turn.call.arguments }
    : { id: `msg_scripted${n}`, type: "message", status: "completed", role: "assistant",
        content: [{ type: "output_text", text: turn.text, annotations: [], logprobs: [] }] };
}

export function answerResponses(res, request, turn) {
  const n = ++counter;
  const id = `resp_scripted${n}`;
  const item = itemOf(turn, n);
  if (!request.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(responseObject(request, id, "completed", [item], usage)));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  let sequence = 0;
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  const started = responseObject(request, id, "in_progress", [], null);
  send("response.created", { response: started });
  send("response.in_progress", { response: started });
  if (turn.call) {
    send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", arguments: "" } });
    const half = Math.floor(turn.call.arguments.length / 2);
    for (const delta of [turn.call.arguments.slice(0, half), turn.call.arguments.slice(half)])
      send("response.function_call_arguments.delta", { item_id: item.id, output_index: 0, delta });
    send("response.function_call_arguments.done", { item_id: item.id, output_index: 0, name: turn.call.name, arguments: turn.call.arguments });
  } else {
    const part = { type: "output_text", text: "", annotations: [], logprobs: [] };
    send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } });
    send("response.content_part.added", { item_id: item.id, output_index: 0, content_index: 0, part });
    send("response.output_text.delta", { item_id: item.id, output_index: 0, content_index: 0, delta: turn.text, logprobs: [] });
    send("response.output_text.done", { item_id: item.id, output_index: 0, content_index: 0, text: turn.text, logprobs: [] });
    send("response.content_part.done", { item_id: item.id, output_index: 0, content_index: 0, part: { ...part, text: turn.text } });
  }
  send("response.output_item.done", { output_index: 0, item });
  send("response.completed", { response: responseObject(request, id, "completed", [item], usage) });
  res.end();
}
