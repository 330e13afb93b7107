#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace sb {

// What makes two chat requests "the same question" for the caches.
namespace CacheKey {

// The request without the fields that do not change the answer: `stream`, `stream_options` (how it
// is delivered) and `user` (who asked). Everything else — model, messages, tools, temperature,
// top_p, max_tokens, seed, response_format, n … — is kept: leaving out a field that does change
// the answer would serve one caller another's answer.
QJsonObject normalised(const QJsonObject &body);

// SHA-256 of the normalised request as canonical JSON (QJsonObject keeps its keys sorted, and a
// compact dump has no whitespace), so key order and formatting in the caller's JSON do not matter.
QByteArray exact(const QJsonObject &body);

// The semantic cache answers only within a scope: the route, the system prompt(s) and every
// parameter except the conversation itself. Two questions that differ only in wording share a
// scope; the same question under another system prompt or temperature does not.
QByteArray semanticScope(const QString &route, const QJsonObject &body);

// The text that is embedded: the conversation without its system messages, one "role: text" line
// per message. Empty when a message carries something other than text (an image, audio): those
// cannot be compared by a text embedding, so such requests use the exact cache only.
QString semanticText(const QJsonObject &body);

} // namespace CacheKey

} // namespace sb
