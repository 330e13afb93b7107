#pragma once

#include <QByteArray>
#include <QJsonObject>

namespace sb::sim {

// The partial answer a chat request asks a provider to go on from, in any dialect's request
// shape (messages, Gemini's contents, DashScope's input.messages): the text of a last assistant
// (model) turn, a prefill; or of the assistant turn just before a last user turn that is the
// engine's continuation instruction. Empty when the request continues nothing.
QByteArray partialAnswerOf(const QJsonObject &body);

} // namespace sb::sim
