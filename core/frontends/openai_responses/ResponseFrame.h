#pragma once

#include <QJsonObject>
#include <QSet>
#include <QString>
#include <QtGlobal>

namespace sb {

// The parts of a response object that come from its request and the proxy, not from the upstream.
// The upstream answers in chat completions, which know nothing of these; every response object the
// Responses front door writes (whole, or in its stream's events) takes them from here.
struct ResponseFrame {
    QString id;                 // "resp_…", chosen by the proxy
    QString model;              // the model name the client asked for (never the upstream's)
    qint64 createdAt = 0;       // unix seconds
    QJsonObject echo;           // request parameters the response repeats (instructions, tools, tool_choice,
                                // parallel_tool_calls, max_output_tokens, temperature, top_p, text, reasoning,
                                // metadata, user, truncation, store, previous_response_id), inserted as given
    QSet<QString> customTools;  // tool names the client declared {"type":"custom"}: the upstream saw a function
                                // tool with one string parameter "input"; its calls go back as custom_tool_call
                                // items whose `input` is that string (arguments JSON {"input": "..."} decoded)
};

} // namespace sb
