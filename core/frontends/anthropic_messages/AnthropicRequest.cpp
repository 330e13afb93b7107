#include "frontends/anthropic_messages/AnthropicRequest.h"

#include "frontends/anthropic_messages/AnthropicQuickCheck.h"

#include "frontends/ChatMessageParts.h"
#include "providers/common/ProviderText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSet>

#include <cmath>
#include <limits>

namespace sb {

namespace {

const QLatin1String kType("type"), kText("text"), kContent("content"), kRole("role"), kSource("source"),
    kCacheControl("cache_control");

// Anthropic's thinking budget (budget_tokens) → OpenAI's reasoning_effort. The bounds split the
// documented range (at least 1,024 tokens) where the effort levels of OpenAI's reasoning models
// roughly fall: a few thousand tokens is a quick look, tens of thousands a long think.
constexpr int LowEffortBelow = 4096;
constexpr int MediumEffortBelow = 16384;
constexpr int MinThinkingBudget = 1024; // Anthropic: "Must be ≥1024 and less than max_tokens"

const QSet<QString> &imageMediaTypes()
{
    static const QSet<QString> types{QStringLiteral("image/jpeg"), QStringLiteral("image/png"),
                                     QStringLiteral("image/gif"), QStringLiteral("image/webp")};
    return types;
}

// The top-level members this translation reads; any other is named in `dropped`.
const QSet<QString> &knownMembers()
{
    static const QSet<QString> members{
        QStringLiteral("model"),       QStringLiteral("max_tokens"),  QStringLiteral("messages"),
        QStringLiteral("system"),      QStringLiteral("stop_sequences"), QStringLiteral("temperature"),
        QStringLiteral("top_p"),       QStringLiteral("top_k"),       QStringLiteral("metadata"),
        QStringLiteral("stream"),      QStringLiteral("tools"),       QStringLiteral("tool_choice"),
        QStringLiteral("thinking"),    QStringLiteral("cache_control")};
    return members;
}

bool integerValue(const QJsonValue &value, qint64 *out)
{
    if (!value.isDouble())
        return false;
    const double d = value.toDouble();
    if (!std::isfinite(d) || d != std::trunc(d) || std::fabs(d) > 9.0e15)
        return false;
    *out = static_cast<qint64>(d);
    return true;
}

QJsonObject textPart(const QString &text)
{
    return QJsonObject{{kType, kText}, {kText, text}};
}

QJsonObject imagePart(const QString &url)
{
    return QJsonObject{{kType, QStringLiteral("image_url")}, {QStringLiteral("image_url"), QJsonObject{{QStringLiteral("url"), url}}}};
}

class Translator {
public:
    Translator(AnthropicRequest *out, AnthropicRequest::Purpose purpose)
        : m_out(out)
        , m_purpose(purpose)
    {
    }

    std::optional<AnthropicError> error;

    bool run(const QJsonObject &root);

private:
    bool fail(const QString &path, const QString &what)
    {
        if (!error)
            error = AnthropicError::invalidRequest(path + QStringLiteral(": ") + what);
        return false;
    }
    void drop(const QString &what)
    {
        if (!m_out->dropped.contains(what))
            m_out->dropped << what;
    }
    void noteCacheControl(const QJsonObject &object)
    {
        if (object.contains(kCacheControl))
            drop(QStringLiteral("cache_control"));
    }

    bool requiredString(const QJsonObject &object, QLatin1String key, const QString &path, QString *out, bool nonEmpty = false);
    bool optionalString(const QJsonObject &object, QLatin1String key, const QString &path, QString *out);
    bool optionalUnitInterval(const QJsonObject &root, QLatin1String key);
    bool blockType(const QJsonValue &block, const QString &path, QJsonObject *object, QString *type);

    // The top-level "system", or a system message inside the conversation (`path` says which).
    bool system(const QJsonValue &value, QJsonArray *messages, const QString &path = QStringLiteral("system"));
    bool userTurn(const QJsonArray &blocks, const QString &path, QJsonArray *messages);
    bool assistantTurn(const QJsonArray &blocks, const QString &path, QJsonArray *messages);
    bool image(const QJsonObject &block, const QString &path, QJsonArray *parts);
    bool document(const QJsonObject &block, const QString &path, QJsonArray *parts);
    bool toolResult(const QJsonObject &block, const QString &path, QJsonArray *toolMessages, QJsonArray *parts);
    bool thinkingBlock(const QJsonObject &block, const QString &type, const QString &path);
    bool tools(const QJsonValue &value, QJsonArray *out);
    bool toolChoice(const QJsonValue &value, QJsonValue *choice, bool *noParallel);
    bool thinking(const QJsonValue &value, QString *effort);

    AnthropicRequest *m_out;
    AnthropicRequest::Purpose m_purpose;
};

bool Translator::requiredString(const QJsonObject &object, QLatin1String key, const QString &path, QString *out, bool nonEmpty)
{
    const QJsonValue value = object.value(key);
    const QString where = path.isEmpty() ? QString(key) : path + QLatin1Char('.') + key;
    if (value.isUndefined())
        return fail(where, QStringLiteral("Field required."));
    if (!value.isString())
        return fail(where, QStringLiteral("Input should be a valid string."));
    if (nonEmpty && value.toString().isEmpty())
        return fail(where, QStringLiteral("Input should be a non-empty string."));
    *out = value.toString();
    return true;
}

bool Translator::optionalString(const QJsonObject &object, QLatin1String key, const QString &path, QString *out)
{
    const QJsonValue value = object.value(key);
    if (value.isUndefined() || value.isNull())
        return true;
    if (!value.isString())
        return fail(path + QLatin1Char('.') + key, QStringLiteral("Input should be a valid string."));
    *out = value.toString();
    return true;
}

bool Translator::optionalUnitInterval(const QJsonObject &root, QLatin1String key)
{
    const QJsonValue value = root.value(key);
    if (value.isUndefined() || value.isNull())
        return true;
    if (!value.isDouble())
        return fail(key, QStringLiteral("Input should be a valid number."));
    const double d = value.toDouble();
    if (d < 0.0)
        return fail(key, QStringLiteral("Input should be greater than or equal to 0."));
    if (d > 1.0)
        return fail(key, QStringLiteral("Input should be less than or equal to 1."));
    m_out->openAiBody.insert(key, d);
    return true;
}

bool Translator::blockType(const QJsonValue &block, const QString &path, QJsonObject *object, QString *type)
{
    if (!block.isObject())
        return fail(path, QStringLiteral("Input should be a content block object with a \"type\"."));
    *object = block.toObject();
    if (!requiredString(*object, kType, path, type))
        return false;
    noteCacheControl(*object);
    return true;
}

bool Translator::run(const QJsonObject &root)
{
    QString model;
    if (!requiredString(root, QLatin1String("model"), QString(), &model, true))
        return false;
    m_out->model = model;

    if (m_purpose == AnthropicRequest::Purpose::CreateMessage) {
        const QJsonValue maxTokens = root.value(QLatin1String("max_tokens"));
        qint64 n = 0;
        if (maxTokens.isUndefined())
            return fail(QStringLiteral("max_tokens"),
                        QStringLiteral("Field required. Send the most tokens the answer may use, an integer of at least 1."));
        if (!integerValue(maxTokens, &n))
            return fail(QStringLiteral("max_tokens"), QStringLiteral("Input should be a valid integer."));
        if (n < 1)
            return fail(QStringLiteral("max_tokens"), QStringLiteral("Input should be greater than or equal to 1."));
        m_out->maxTokens = static_cast<int>(std::min<qint64>(n, std::numeric_limits<int>::max()));
    }

    const QJsonValue messagesValue = root.value(QLatin1String("messages"));
    if (messagesValue.isUndefined())
        return fail(QStringLiteral("messages"),
                    QStringLiteral("Field required. Send the conversation as a list of {\"role\", \"content\"} messages."));
    if (!messagesValue.isArray())
        return fail(QStringLiteral("messages"), QStringLiteral("Input should be a valid list."));
    const QJsonArray messages = messagesValue.toArray();
    if (messages.isEmpty())
        return fail(QStringLiteral("messages"), QStringLiteral("At least one message is required."));

    QJsonArray openAiMessages;
    if (!system(root.value(QLatin1String("system")), &openAiMessages))
        return false;

    for (qsizetype i = 0; i < messages.size(); ++i) {
        const QString path = QStringLiteral("messages.%1").arg(i);
        if (!messages.at(i).isObject())
            return fail(path, QStringLiteral("Input should be an object with \"role\" and \"content\"."));
        const QJsonObject message = messages.at(i).toObject();
        QString role;
        if (!requiredString(message, kRole, path, &role))
            return false;
        const bool user = role == QLatin1String("user");
        if (role == QLatin1String("system")) {
            // A system message in the middle of the conversation (Claude Code sends its reminders
            // so, under the mid-conversation-system beta): an OpenAI system message in its place.
            if (message.value(kContent).isUndefined())
                return fail(path + QStringLiteral(".content"), QStringLiteral("Field required."));
            if (!system(message.value(kContent), &openAiMessages, path + QStringLiteral(".content")))
                return false;
            continue;
        }
        if (!user && role != QLatin1String("assistant"))
            return fail(path + QStringLiteral(".role"),
                        QStringLiteral("Input should be 'user', 'assistant' or 'system'. A system prompt usually goes in the top-level \"system\"."));
        const QJsonValue content = message.value(kContent);
        if (content.isUndefined())
            return fail(path + QStringLiteral(".content"), QStringLiteral("Field required."));
        if (content.isString()) {
            openAiMessages.append(QJsonObject{{kRole, role}, {kContent, content.toString()}});
            continue;
        }
        if (!content.isArray())
            return fail(path + QStringLiteral(".content"), QStringLiteral("Input should be a valid string or a list of content blocks."));
        const bool ok = user ? userTurn(content.toArray(), path + QStringLiteral(".content"), &openAiMessages)
                             : assistantTurn(content.toArray(), path + QStringLiteral(".content"), &openAiMessages);
        if (!ok)
            return false;
    }

    QJsonObject &body = m_out->openAiBody;
    body.insert(QStringLiteral("model"), model);
    body.insert(QStringLiteral("messages"), openAiMessages);
    if (m_purpose == AnthropicRequest::Purpose::CreateMessage)
        body.insert(QStringLiteral("max_tokens"), m_out->maxTokens);

    const QJsonValue stops = root.value(QLatin1String("stop_sequences"));
    if (!stops.isUndefined() && !stops.isNull()) {
        if (!stops.isArray())
            return fail(QStringLiteral("stop_sequences"), QStringLiteral("Input should be a valid list of strings."));
        const QJsonArray list = stops.toArray();
        QJsonArray openAiStops;
        for (qsizetype i = 0; i < list.size(); ++i) {
            if (!list.at(i).isString())
                return fail(QStringLiteral("stop_sequences.%1").arg(i), QStringLiteral("Input should be a valid string."));
            m_out->stopSequences << list.at(i).toString();
            if (openAiStops.size() < AnthropicRequest::MaxOpenAiStops)
                openAiStops.append(list.at(i));
        }
        if (list.size() > AnthropicRequest::MaxOpenAiStops)
            drop(QStringLiteral("stop_sequences after the fourth"));
        if (!openAiStops.isEmpty())
            body.insert(QStringLiteral("stop"), openAiStops);
    }

    if (!optionalUnitInterval(root, QLatin1String("temperature")) || !optionalUnitInterval(root, QLatin1String("top_p")))
        return false;

    const QJsonValue topK = root.value(QLatin1String("top_k"));
    if (!topK.isUndefined() && !topK.isNull()) {
        qint64 k = 0;
        if (!integerValue(topK, &k))
            return fail(QStringLiteral("top_k"), QStringLiteral("Input should be a valid integer."));
        if (k < 0)
            return fail(QStringLiteral("top_k"), QStringLiteral("Input should be greater than or equal to 0."));
        drop(QStringLiteral("top_k"));
    }

    const QJsonValue metadata = root.value(QLatin1String("metadata"));
    if (!metadata.isUndefined() && !metadata.isNull()) {
        if (!metadata.isObject())
            return fail(QStringLiteral("metadata"), QStringLiteral("Input should be a valid dictionary."));
        QString userId;
        if (!optionalString(metadata.toObject(), QLatin1String("user_id"), QStringLiteral("metadata"), &userId))
            return false;
        if (!userId.isEmpty())
            body.insert(QStringLiteral("user"), userId);
    }

    const QJsonValue stream = root.value(QLatin1String("stream"));
    if (!stream.isUndefined() && !stream.isNull()) {
        if (!stream.isBool())
            return fail(QStringLiteral("stream"), QStringLiteral("Input should be a valid boolean."));
        m_out->stream = stream.toBool() && m_purpose == AnthropicRequest::Purpose::CreateMessage;
    }
    if (m_out->stream) {
        body.insert(QStringLiteral("stream"), true);
        // The writer needs the output token count for message_delta.
        body.insert(QStringLiteral("stream_options"), QJsonObject{{QStringLiteral("include_usage"), true}});
    }

    QJsonArray openAiTools;
    if (!tools(root.value(QLatin1String("tools")), &openAiTools))
        return false;
    QJsonValue choice(QJsonValue::Undefined);
    bool noParallel = false;
    if (!toolChoice(root.value(QLatin1String("tool_choice")), &choice, &noParallel))
        return false;
    // OpenAI refuses tool_choice without tools.
    if (!openAiTools.isEmpty()) {
        body.insert(QStringLiteral("tools"), openAiTools);
        if (!choice.isUndefined())
            body.insert(QStringLiteral("tool_choice"), choice);
        if (noParallel)
            body.insert(QStringLiteral("parallel_tool_calls"), false);
    }

    QString effort;
    if (!thinking(root.value(QLatin1String("thinking")), &effort))
        return false;
    if (!effort.isEmpty())
        body.insert(QStringLiteral("reasoning_effort"), effort);

    noteCacheControl(root);
    for (auto it = root.constBegin(); it != root.constEnd(); ++it)
        if (!knownMembers().contains(it.key()))
            drop(it.key());
    return true;
}

bool Translator::system(const QJsonValue &value, QJsonArray *messages, const QString &where)
{
    if (value.isUndefined() || value.isNull())
        return true;
    QString text;
    if (value.isString()) {
        text = value.toString();
    } else if (value.isArray()) {
        const QJsonArray blocks = value.toArray();
        QStringList texts;
        for (qsizetype i = 0; i < blocks.size(); ++i) {
            const QString path = QStringLiteral("%1.%2").arg(where).arg(i);
            QJsonObject block;
            QString type;
            if (!blockType(blocks.at(i), path, &block, &type))
                return false;
            if (type != kText)
                return fail(path + QStringLiteral(".type"), QStringLiteral("Input should be 'text': the system prompt takes text blocks only."));
            QString blockText;
            if (!requiredString(block, kText, path, &blockText))
                return false;
            if (!blockText.isEmpty())
                texts << blockText;
        }
        // Blank lines keep the sections of a multi-block prompt (Claude Code sends several) apart.
        text = texts.join(QStringLiteral("\n\n"));
    } else {
        return fail(where, QStringLiteral("Input should be a valid string or a list of text blocks."));
    }
    if (!text.isEmpty())
        messages->append(QJsonObject{{kRole, QStringLiteral("system")}, {kContent, text}});
    return true;
}

bool Translator::image(const QJsonObject &block, const QString &path, QJsonArray *parts)
{
    const QJsonValue sourceValue = block.value(kSource);
    if (sourceValue.isUndefined())
        return fail(path + QStringLiteral(".source"), QStringLiteral("Field required."));
    if (!sourceValue.isObject())
        return fail(path + QStringLiteral(".source"), QStringLiteral("Input should be a valid dictionary."));
    const QJsonObject source = sourceValue.toObject();
    const QString sourcePath = path + QStringLiteral(".source");
    QString type;
    if (!requiredString(source, kType, sourcePath, &type))
        return false;
    if (type == QLatin1String("base64")) {
        QString mediaType, data;
        if (!requiredString(source, QLatin1String("media_type"), sourcePath, &mediaType)
            || !requiredString(source, QLatin1String("data"), sourcePath, &data))
            return false;
        if (!imageMediaTypes().contains(mediaType))
            return fail(sourcePath + QStringLiteral(".media_type"),
                        QStringLiteral("Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'."));
        parts->append(imagePart(QStringLiteral("data:%1;base64,%2").arg(mediaType, data)));
        return true;
    }
    if (type == QLatin1String("url")) {
        QString url;
        if (!requiredString(source, QLatin1String("url"), sourcePath, &url, true))
            return false;
        parts->append(imagePart(url));
        return true;
    }
    if (type == QLatin1String("file")) {
        QString fileId;
        if (!requiredString(source, QLatin1String("file_id"), sourcePath, &fileId))
            return false;
        drop(QStringLiteral("images given by file_id"));
        return true;
    }
    return fail(sourcePath + QStringLiteral(".type"), QStringLiteral("Input should be 'base64', 'url' or 'file'."));
}

bool Translator::document(const QJsonObject &block, const QString &path, QJsonArray *parts)
{
    const QJsonValue sourceValue = block.value(kSource);
    if (sourceValue.isUndefined())
        return fail(path + QStringLiteral(".source"), QStringLiteral("Field required."));
    if (!sourceValue.isObject())
        return fail(path + QStringLiteral(".source"), QStringLiteral("Input should be a valid dictionary."));
    QString title, context;
    if (!optionalString(block, QLatin1String("title"), path, &title) || !optionalString(block, QLatin1String("context"), path, &context))
        return false;
    if (block.contains(QLatin1String("citations")))
        drop(QStringLiteral("citations"));
    const QJsonObject source = sourceValue.toObject();
    const QString sourcePath = path + QStringLiteral(".source");
    QString type;
    if (!requiredString(source, kType, sourcePath, &type))
        return false;

    // Title and context are what Anthropic shows the model beside the document; in front of the text.
    QStringList header;
    if (!title.isEmpty())
        header << title;
    if (!context.isEmpty())
        header << context;

    if (type == QLatin1String("base64")) {
        QString mediaType, data;
        if (!requiredString(source, QLatin1String("media_type"), sourcePath, &mediaType)
            || !requiredString(source, QLatin1String("data"), sourcePath, &data))
            return false;
        if (mediaType != QLatin1String("application/pdf"))
            return fail(sourcePath + QStringLiteral(".media_type"), QStringLiteral("Input should be 'application/pdf'."));
        if (!header.isEmpty())
            parts->append(textPart(header.join(QStringLiteral("\n\n"))));
        const QString filename = title.isEmpty() ? QStringLiteral("document.pdf") : title;
        parts->append(QJsonObject{{kType, QStringLiteral("file")},
                                  {QStringLiteral("file"),
                                   QJsonObject{{QStringLiteral("filename"), filename},
                                               {QStringLiteral("file_data"), QStringLiteral("data:application/pdf;base64,") + data}}}});
        return true;
    }
    if (type == kText) {
        QString mediaType, data;
        if (!requiredString(source, QLatin1String("media_type"), sourcePath, &mediaType)
            || !requiredString(source, QLatin1String("data"), sourcePath, &data))
            return false;
        if (mediaType != QLatin1String("text/plain"))
            return fail(sourcePath + QStringLiteral(".media_type"), QStringLiteral("Input should be 'text/plain'."));
        header << data;
        parts->append(textPart(header.join(QStringLiteral("\n\n"))));
        return true;
    }
    if (type == kContent) {
        const QJsonValue content = source.value(kContent);
        if (!header.isEmpty())
            parts->append(textPart(header.join(QStringLiteral("\n\n"))));
        if (content.isString()) {
            parts->append(textPart(content.toString()));
            return true;
        }
        if (!content.isArray())
            return fail(sourcePath + QStringLiteral(".content"), QStringLiteral("Input should be a valid string or a list of text and image blocks."));
        const QJsonArray blocks = content.toArray();
        for (qsizetype i = 0; i < blocks.size(); ++i) {
            const QString blockPath = sourcePath + QStringLiteral(".content.%1").arg(i);
            QJsonObject inner;
            QString innerType;
            if (!blockType(blocks.at(i), blockPath, &inner, &innerType))
                return false;
            if (innerType == kText) {
                QString text;
                if (!requiredString(inner, kText, blockPath, &text))
                    return false;
                parts->append(textPart(text));
            } else if (innerType == QLatin1String("image")) {
                if (!image(inner, blockPath, parts))
                    return false;
            } else {
                return fail(blockPath + QStringLiteral(".type"), QStringLiteral("Input should be 'text' or 'image'."));
            }
        }
        return true;
    }
    if (type == QLatin1String("url")) {
        QString url;
        if (!requiredString(source, QLatin1String("url"), sourcePath, &url, true))
            return false;
        header << QStringLiteral("Document: %1").arg(url);
        parts->append(textPart(header.join(QStringLiteral("\n\n"))));
        drop(QStringLiteral("documents given by URL"));
        return true;
    }
    if (type == QLatin1String("file")) {
        QString fileId;
        if (!requiredString(source, QLatin1String("file_id"), sourcePath, &fileId))
            return false;
        drop(QStringLiteral("documents given by file_id"));
        return true;
    }
    return fail(sourcePath + QStringLiteral(".type"), QStringLiteral("Input should be 'base64', 'text', 'content', 'url' or 'file'."));
}

bool Translator::toolResult(const QJsonObject &block, const QString &path, QJsonArray *toolMessages, QJsonArray *parts)
{
    QString toolUseId;
    if (!requiredString(block, QLatin1String("tool_use_id"), path, &toolUseId, true))
        return false;
    const QJsonValue isError = block.value(QLatin1String("is_error"));
    if (!isError.isUndefined() && !isError.isNull() && !isError.isBool())
        return fail(path + QStringLiteral(".is_error"), QStringLiteral("Input should be a valid boolean."));

    QStringList texts;
    qsizetype images = 0;
    const QJsonValue content = block.value(kContent);
    if (content.isString()) {
        texts << content.toString();
    } else if (content.isArray()) {
        const QJsonArray blocks = content.toArray();
        for (qsizetype i = 0; i < blocks.size(); ++i) {
            const QString blockPath = path + QStringLiteral(".content.%1").arg(i);
            QJsonObject inner;
            QString type;
            if (!blockType(blocks.at(i), blockPath, &inner, &type))
                return false;
            if (type == kText) {
                QString text;
                if (!requiredString(inner, kText, blockPath, &text))
                    return false;
                texts << text;
            } else if (type == QLatin1String("image")) {
                // OpenAI's tool messages carry text only: the image rides in the user message that
                // follows this turn's tool messages.
                const qsizetype before = parts->size();
                if (!image(inner, blockPath, parts))
                    return false;
                images += parts->size() - before;
            } else if (type == QLatin1String("document")) {
                if (!document(inner, blockPath, parts))
                    return false;
                images += 1;
            } else {
                drop(QStringLiteral("%1 blocks in tool results").arg(type));
            }
        }
    } else if (!content.isUndefined() && !content.isNull()) {
        return fail(path + QStringLiteral(".content"), QStringLiteral("Input should be a valid string or a list of content blocks."));
    }

    QString text = texts.join(QLatin1Char('\n'));
    if (text.isEmpty() && images > 0)
        text = QStringLiteral("(The tool's result is attached to the next user message.)");
    if (isError.toBool(false))
        text = QStringLiteral("Error: ") + text;
    toolMessages->append(QJsonObject{{kRole, QStringLiteral("tool")},
                                     {QStringLiteral("tool_call_id"), toolUseId},
                                     {kContent, text}});
    return true;
}

bool Translator::thinkingBlock(const QJsonObject &block, const QString &type, const QString &path)
{
    QString ignored;
    if (type == QLatin1String("thinking")) {
        if (!requiredString(block, QLatin1String("thinking"), path, &ignored) || !requiredString(block, QLatin1String("signature"), path, &ignored))
            return false;
    } else if (!requiredString(block, QLatin1String("data"), path, &ignored)) {
        return false;
    }
    drop(QStringLiteral("thinking blocks of earlier turns"));
    return true;
}

bool Translator::userTurn(const QJsonArray &blocks, const QString &path, QJsonArray *messages)
{
    QJsonArray toolMessages;
    QJsonArray parts;
    for (qsizetype i = 0; i < blocks.size(); ++i) {
        const QString blockPath = path + QStringLiteral(".%1").arg(i);
        QJsonObject block;
        QString type;
        if (!blockType(blocks.at(i), blockPath, &block, &type))
            return false;
        if (type == kText) {
            QString text;
            if (!requiredString(block, kText, blockPath, &text))
                return false;
            if (!text.isEmpty())
                parts.append(textPart(text));
        } else if (type == QLatin1String("image")) {
            if (!image(block, blockPath, &parts))
                return false;
        } else if (type == QLatin1String("document")) {
            if (!document(block, blockPath, &parts))
                return false;
        } else if (type == QLatin1String("tool_result")) {
            if (!toolResult(block, blockPath, &toolMessages, &parts))
                return false;
        } else if (type == QLatin1String("tool_use")) {
            return fail(blockPath + QStringLiteral(".type"),
                        QStringLiteral("tool_use blocks belong in an assistant turn; answer them with tool_result blocks in the next user turn."));
        } else if (type == QLatin1String("thinking") || type == QLatin1String("redacted_thinking")) {
            if (!thinkingBlock(block, type, blockPath))
                return false;
        } else {
            drop(QStringLiteral("%1 blocks").arg(type));
        }
    }
    // OpenAI wants a call's tool message right after the assistant message that made the call, so
    // the results come first (Anthropic asks for them first in the turn as well), then the rest.
    for (const QJsonValue &tool : std::as_const(toolMessages))
        messages->append(tool);
    if (!parts.isEmpty())
        messages->append(QJsonObject{{kRole, QStringLiteral("user")}, {kContent, chatContent(parts)}});
    else if (toolMessages.isEmpty())
        messages->append(QJsonObject{{kRole, QStringLiteral("user")}, {kContent, QString()}});
    return true;
}

bool Translator::assistantTurn(const QJsonArray &blocks, const QString &path, QJsonArray *messages)
{
    QStringList texts;
    QJsonArray toolCalls;
    for (qsizetype i = 0; i < blocks.size(); ++i) {
        const QString blockPath = path + QStringLiteral(".%1").arg(i);
        QJsonObject block;
        QString type;
        if (!blockType(blocks.at(i), blockPath, &block, &type))
            return false;
        if (type == kText) {
            QString text;
            if (!requiredString(block, kText, blockPath, &text))
                return false;
            if (!text.isEmpty())
                texts << text;
        } else if (type == QLatin1String("tool_use")) {
            QString id, name;
            if (!requiredString(block, QLatin1String("id"), blockPath, &id, true)
                || !requiredString(block, QLatin1String("name"), blockPath, &name, true))
                return false;
            const QJsonValue input = block.value(QLatin1String("input"));
            if (input.isUndefined())
                return fail(blockPath + QStringLiteral(".input"), QStringLiteral("Field required."));
            if (!input.isObject())
                return fail(blockPath + QStringLiteral(".input"), QStringLiteral("Input should be a valid dictionary."));
            toolCalls.append(QJsonObject{
                {QStringLiteral("id"), id},
                {kType, QStringLiteral("function")},
                {QStringLiteral("function"),
                 QJsonObject{{QStringLiteral("name"), name},
                             {QStringLiteral("arguments"), QString::fromUtf8(compactJson(input.toObject()))}}}});
        } else if (type == QLatin1String("thinking") || type == QLatin1String("redacted_thinking")) {
            if (!thinkingBlock(block, type, blockPath))
                return false;
        } else if (type == QLatin1String("tool_result")) {
            return fail(blockPath + QStringLiteral(".type"),
                        QStringLiteral("tool_result blocks belong in a user turn, after the assistant turn that used the tool."));
        } else {
            drop(QStringLiteral("%1 blocks in assistant turns").arg(type));
        }
    }
    if (texts.isEmpty() && toolCalls.isEmpty())
        return true; // only thinking: nothing an OpenAI upstream can be shown
    QJsonObject message{{kRole, QStringLiteral("assistant")},
                        {kContent, texts.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(texts.join(QLatin1Char('\n')))}};
    if (!toolCalls.isEmpty())
        message.insert(QStringLiteral("tool_calls"), toolCalls);
    messages->append(message);
    return true;
}

bool Translator::tools(const QJsonValue &value, QJsonArray *out)
{
    if (value.isUndefined() || value.isNull())
        return true;
    if (!value.isArray())
        return fail(QStringLiteral("tools"), QStringLiteral("Input should be a valid list."));
    const QJsonArray list = value.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString path = QStringLiteral("tools.%1").arg(i);
        if (!list.at(i).isObject())
            return fail(path, QStringLiteral("Input should be a tool object with \"name\" and \"input_schema\"."));
        const QJsonObject tool = list.at(i).toObject();
        noteCacheControl(tool);
        const QJsonValue type = tool.value(kType);
        if (!type.isUndefined() && !type.isNull()) {
            if (!type.isString())
                return fail(path + QStringLiteral(".type"), QStringLiteral("Input should be a valid string."));
            if (type.toString() != QLatin1String("custom")) {
                // Anthropic's server and built-in tools (web search, bash, text editor, …) run or are
                // defined at Anthropic; an OpenAI upstream has no such tool to offer.
                QString name;
                if (!requiredString(tool, QLatin1String("name"), path, &name))
                    return false;
                drop(QStringLiteral("tool %1 (%2)").arg(name, type.toString()));
                continue;
            }
        }
        QString name, description;
        if (!requiredString(tool, QLatin1String("name"), path, &name, true)
            || !optionalString(tool, QLatin1String("description"), path, &description))
            return false;
        const QJsonValue schema = tool.value(QLatin1String("input_schema"));
        if (schema.isUndefined())
            return fail(path + QStringLiteral(".input_schema"), QStringLiteral("Field required. Describe the tool's input as a JSON Schema object."));
        if (!schema.isObject())
            return fail(path + QStringLiteral(".input_schema"), QStringLiteral("Input should be a valid dictionary."));
        QJsonObject function{{QStringLiteral("name"), name}, {QStringLiteral("parameters"), schema}};
        if (!description.isEmpty())
            function.insert(QStringLiteral("description"), description);
        if (tool.value(QLatin1String("strict")).isBool())
            function.insert(QStringLiteral("strict"), tool.value(QLatin1String("strict")));
        out->append(QJsonObject{{kType, QStringLiteral("function")}, {QStringLiteral("function"), function}});
    }
    return true;
}

bool Translator::toolChoice(const QJsonValue &value, QJsonValue *choice, bool *noParallel)
{
    if (value.isUndefined() || value.isNull())
        return true;
    if (!value.isObject())
        return fail(QStringLiteral("tool_choice"), QStringLiteral("Input should be an object such as {\"type\": \"auto\"}."));
    const QJsonObject object = value.toObject();
    QString type;
    if (!requiredString(object, kType, QStringLiteral("tool_choice"), &type))
        return false;
    const QJsonValue parallel = object.value(QLatin1String("disable_parallel_tool_use"));
    if (!parallel.isUndefined() && !parallel.isNull() && !parallel.isBool())
        return fail(QStringLiteral("tool_choice.disable_parallel_tool_use"), QStringLiteral("Input should be a valid boolean."));
    if (type == QLatin1String("auto")) {
        *choice = QStringLiteral("auto");
    } else if (type == QLatin1String("any")) {
        *choice = QStringLiteral("required");
    } else if (type == QLatin1String("none")) {
        *choice = QStringLiteral("none");
    } else if (type == QLatin1String("tool")) {
        QString name;
        if (!requiredString(object, QLatin1String("name"), QStringLiteral("tool_choice"), &name, true))
            return false;
        *choice = QJsonObject{{kType, QStringLiteral("function")}, {QStringLiteral("function"), QJsonObject{{QStringLiteral("name"), name}}}};
    } else {
        return fail(QStringLiteral("tool_choice.type"), QStringLiteral("Input should be 'auto', 'any', 'tool' or 'none'."));
    }
    *noParallel = parallel.toBool(false) && type != QLatin1String("none");
    return true;
}

bool Translator::thinking(const QJsonValue &value, QString *effort)
{
    if (value.isUndefined() || value.isNull())
        return true;
    if (!value.isObject())
        return fail(QStringLiteral("thinking"), QStringLiteral("Input should be an object such as {\"type\": \"enabled\", \"budget_tokens\": 2048}."));
    const QJsonObject object = value.toObject();
    QString type;
    if (!requiredString(object, kType, QStringLiteral("thinking"), &type))
        return false;
    if (type == QLatin1String("disabled"))
        return true;
    if (type == QLatin1String("adaptive")) {
        drop(QStringLiteral("adaptive thinking"));
        return true;
    }
    if (type != QLatin1String("enabled"))
        return fail(QStringLiteral("thinking.type"), QStringLiteral("Input should be 'enabled', 'disabled' or 'adaptive'."));
    const QJsonValue budget = object.value(QLatin1String("budget_tokens"));
    qint64 n = 0;
    if (budget.isUndefined())
        return fail(QStringLiteral("thinking.budget_tokens"), QStringLiteral("Field required. Give the thinking budget in tokens (at least 1024)."));
    if (!integerValue(budget, &n))
        return fail(QStringLiteral("thinking.budget_tokens"), QStringLiteral("Input should be a valid integer."));
    if (n < MinThinkingBudget)
        return fail(QStringLiteral("thinking.budget_tokens"), QStringLiteral("Input should be greater than or equal to 1024."));
    if (m_purpose == AnthropicRequest::Purpose::CreateMessage && n >= m_out->maxTokens)
        return fail(QStringLiteral("thinking.budget_tokens"),
                    QStringLiteral("Input should be less than max_tokens (%1): the budget is part of max_tokens.").arg(m_out->maxTokens));
    *effort = n < LowEffortBelow ? QStringLiteral("low") : n < MediumEffortBelow ? QStringLiteral("medium") : QStringLiteral("high");
    return true;
}

} // namespace

int AnthropicRequest::estimateTokens(qsizetype bytes)
{
    return static_cast<int>(qMin<qsizetype>(bytes / 4 + 1, 100'000'000));
}

std::optional<AnthropicRequest::Prepared> AnthropicRequest::prepare(const QByteArray &body, AnthropicError *error)
{
    if (std::optional<AnthropicRequest> quick = quickCheckAnthropicRequest(body)) {
        // The quick check accepts only what parse accepts, so the translation made later cannot fail.
        ClientBody openAi = ClientBody::deferred([body] {
            AnthropicError unused;
            std::optional<AnthropicRequest> full = parse(body, &unused);
            return full ? full->openAiBody : QJsonObject();
        });
        return Prepared{std::move(*quick), std::move(openAi)};
    }
    std::optional<AnthropicRequest> full = parse(body, error);
    if (!full)
        return std::nullopt;
    ClientBody openAi(std::move(full->openAiBody));
    full->openAiBody = QJsonObject();
    return Prepared{std::move(*full), std::move(openAi)};
}

std::optional<AnthropicRequest> AnthropicRequest::parse(const QByteArray &body, AnthropicError *error, Purpose purpose)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        if (error)
            *error = AnthropicError::invalidRequest(
                parseError.error != QJsonParseError::NoError
                    ? QStringLiteral("The request body is not valid JSON (%1 at byte %2). Send the Messages request as one JSON object.")
                          .arg(parseError.errorString())
                          .arg(parseError.offset)
                    : QStringLiteral("The request body must be a JSON object. Send the Messages request as one JSON object."));
        return std::nullopt;
    }
    AnthropicRequest request;
    Translator translator(&request, purpose);
    if (!translator.run(document.object())) {
        if (error)
            *error = translator.error.value_or(AnthropicError::invalidRequest(QStringLiteral("The request is not a valid Messages request.")));
        return std::nullopt;
    }
    request.original = body;
    request.estimatedPromptTokens = AnthropicRequest::estimateTokens(body.size());
    return request;
}

} // namespace sb
