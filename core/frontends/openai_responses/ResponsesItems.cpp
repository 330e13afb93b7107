#include "frontends/openai_responses/ResponsesItems.h"

#include "frontends/ChatMessageParts.h"
#include "providers/common/ProviderText.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace sb::responses {

namespace {

const QLatin1String kType("type"), kRole("role"), kContent("content"), kText("text"), kCallId("call_id"),
    kName("name"), kOutput("output");

// Items of OpenAI's built-in tools: their calls ran on OpenAI's servers and no upstream here can
// continue them.
const QSet<QString> &builtInItemTypes()
{
    static const QSet<QString> types{
        QStringLiteral("file_search_call"),      QStringLiteral("web_search_call"),
        QStringLiteral("computer_call"),         QStringLiteral("computer_call_output"),
        QStringLiteral("code_interpreter_call"), QStringLiteral("image_generation_call"),
        QStringLiteral("local_shell_call"),      QStringLiteral("local_shell_call_output"),
        QStringLiteral("shell_call"),            QStringLiteral("shell_call_output"),
        QStringLiteral("apply_patch_call"),      QStringLiteral("apply_patch_call_output"),
        QStringLiteral("mcp_list_tools"),        QStringLiteral("mcp_approval_request"),
        QStringLiteral("mcp_approval_response"), QStringLiteral("mcp_call"),
        QStringLiteral("tool_search_call"),      QStringLiteral("tool_search_output")};
    return types;
}

const QStringList &itemTypes()
{
    static const QStringList types{QStringLiteral("message"),          QStringLiteral("function_call"),
                                   QStringLiteral("function_call_output"), QStringLiteral("custom_tool_call"),
                                   QStringLiteral("custom_tool_call_output"), QStringLiteral("reasoning")};
    return types;
}

const QStringList &roles()
{
    static const QStringList list{QStringLiteral("user"), QStringLiteral("assistant"), QStringLiteral("system"),
                                  QStringLiteral("developer")};
    return list;
}

// Shown to the model in a tool message whose images or files went to the user message after it
// (chat tool messages carry text only).
const QString &attachedNote()
{
    static const QString note = QStringLiteral("(The tool's result is attached to the next user message.)");
    return note;
}

QJsonObject textPart(const QString &text)
{
    return QJsonObject{{kType, kText}, {kText, text}};
}

bool partType(Check &check, const QJsonValue &value, const QString &path, QJsonObject *part, QString *type)
{
    if (!value.isObject())
        return check.wrongType(path, value, QStringLiteral("an object such as {\"type\": \"input_text\", \"text\": \"…\"}"));
    *part = value.toObject();
    return check.requiredString(*part, kType, path, type);
}

bool imagePart(Check &check, const QJsonObject &part, const QString &path, QStringList *dropped, QJsonObject *out)
{
    QString url, fileId, detail;
    if (!check.optionalString(part, QLatin1String("image_url"), path, &url)
        || !check.optionalString(part, QLatin1String("file_id"), path, &fileId)
        || !check.optionalEnum(part, QLatin1String("detail"), path,
                               {QStringLiteral("auto"), QStringLiteral("low"), QStringLiteral("high"), QStringLiteral("original")},
                               &detail))
        return false;
    if (url.isEmpty()) {
        if (!fileId.isEmpty())
            return check.fail(memberPath(path, QLatin1String("file_id")),
                              QStringLiteral("Switchboard has no Files API, so an image cannot be given by file_id. Send it as "
                                             "'image_url': an https URL or a data: URL (data:image/png;base64,…)."),
                              QStringLiteral("unsupported_parameter"));
        return check.missing(memberPath(path, QLatin1String("image_url")),
                             QStringLiteral("Send the image as an https URL or a data: URL (data:image/png;base64,…)."));
    }
    if (!url.startsWith(QLatin1String("https://")) && !url.startsWith(QLatin1String("http://"))
        && !url.startsWith(QLatin1String("data:")))
        return check.fail(memberPath(path, QLatin1String("image_url")),
                          QStringLiteral("Invalid 'image_url': expected an https URL or a data: URL (data:image/png;base64,…)."));
    QJsonObject image{{QStringLiteral("url"), url}};
    // Chat Completions knows auto, low and high; "original" (full resolution) is nearest to high.
    if (detail == QLatin1String("original")) {
        detail = QStringLiteral("high");
        noteDropped(dropped, QStringLiteral("image detail 'original' (sent as 'high')"));
    }
    if (!detail.isEmpty())
        image.insert(QStringLiteral("detail"), detail);
    *out = QJsonObject{{kType, QStringLiteral("image_url")}, {QStringLiteral("image_url"), image}};
    return true;
}

bool filePart(Check &check, const QJsonObject &part, const QString &path, QStringList *dropped, QJsonObject *out)
{
    QString data, filename, url, fileId;
    if (!check.optionalString(part, QLatin1String("file_data"), path, &data)
        || !check.optionalString(part, QLatin1String("filename"), path, &filename)
        || !check.optionalString(part, QLatin1String("file_url"), path, &url)
        || !check.optionalString(part, QLatin1String("file_id"), path, &fileId))
        return false;
    if (data.isEmpty()) {
        // Chat Completions takes a file inline or by an OpenAI file id, never by URL, and there is
        // no Files API here to hold an id.
        if (!url.isEmpty())
            return check.fail(memberPath(path, QLatin1String("file_url")),
                              QStringLiteral("Switchboard's upstreams take files inline only: send the file's content in "
                                             "'file_data' (a data: URL such as data:application/pdf;base64,…) instead of 'file_url'."),
                              QStringLiteral("unsupported_parameter"));
        if (!fileId.isEmpty())
            return check.fail(memberPath(path, QLatin1String("file_id")),
                              QStringLiteral("Switchboard has no Files API, so a file cannot be given by file_id. Send its content "
                                             "in 'file_data' (a data: URL such as data:application/pdf;base64,…) with a 'filename'."),
                              QStringLiteral("unsupported_parameter"));
        return check.missing(memberPath(path, QLatin1String("file_data")),
                             QStringLiteral("Send the file's content as a data: URL (data:application/pdf;base64,…) with a 'filename'."));
    }
    if (given(part.value(QLatin1String("detail"))))
        noteDropped(dropped, QStringLiteral("input_file detail"));
    // Chat Completions wants a name beside inline data; the data URL's media type gives one.
    if (filename.isEmpty())
        filename = data.startsWith(QLatin1String("data:application/pdf")) ? QStringLiteral("document.pdf") : QStringLiteral("document");
    *out = QJsonObject{{kType, QStringLiteral("file")},
                       {QStringLiteral("file"), QJsonObject{{QStringLiteral("filename"), filename}, {QStringLiteral("file_data"), data}}}};
    return true;
}

// One item of the list, checked and translated. What it contributes is committed to the output only
// once the whole item is known good, so a bad stored item can be left out without leaving half of
// itself behind.
class ItemTranslator {
public:
    ItemTranslator(const QSet<QString> &customTools, QStringList *dropped)
        : m_customTools(customTools)
        , m_dropped(dropped)
    {
    }

    bool item(Check &check, const QJsonValue &value, const QString &path);
    QJsonArray finish()
    {
        flushAssistant();
        flushAttachments();
        return m_messages;
    }

private:
    bool message(Check &check, const QJsonObject &item, const QString &path);
    bool assistantText(Check &check, const QJsonValue &content, const QString &path, QStringList *texts);
    bool inputParts(Check &check, const QJsonArray &parts, const QString &path, bool systemRole, QJsonArray *out);
    bool toolCall(Check &check, const QJsonObject &item, const QString &type, const QString &path);
    bool toolOutput(Check &check, const QJsonObject &item, const QString &path);

    void flushAssistant();
    void flushAttachments();

    const QSet<QString> &m_customTools;
    QStringList *m_dropped;
    QJsonArray m_messages;
    // The assistant turn being gathered: its text, then the calls that follow it.
    QStringList m_assistantTexts;
    QJsonArray m_toolCalls;
    bool m_assistantOpen = false;
    // Images and files out of tool outputs, for the user message after the run of tool messages.
    QJsonArray m_attachments;
};

bool ItemTranslator::item(Check &check, const QJsonValue &value, const QString &path)
{
    if (!value.isObject())
        return check.wrongType(path, value, QStringLiteral("an object (an input item such as a message)"));
    const QJsonObject item = value.toObject();
    QString type;
    const QJsonValue typeValue = item.value(kType);
    if (!given(typeValue) && item.contains(kRole))
        type = QStringLiteral("message");
    else if (!check.requiredString(item, kType, path, &type, false, QStringLiteral("Say what the item is, such as \"message\".")))
        return false;

    if (type == QLatin1String("message"))
        return message(check, item, path);
    if (type == QLatin1String("function_call") || type == QLatin1String("custom_tool_call"))
        return toolCall(check, item, type, path);
    if (type == QLatin1String("function_call_output") || type == QLatin1String("custom_tool_call_output"))
        return toolOutput(check, item, path);
    if (type == QLatin1String("reasoning")) {
        // Reasoning of earlier turns is OpenAI's own (encrypted_content only OpenAI can read); no
        // upstream here can take it back. It leaves the turn it sat in whole.
        noteDropped(m_dropped, QStringLiteral("reasoning items"));
        return true;
    }
    const QString typePath = memberPath(path, kType);
    if (type == QLatin1String("item_reference"))
        return check.fail(typePath,
                          QStringLiteral("Switchboard does not resolve item references: send the items themselves, or "
                                         "continue the conversation with previous_response_id."),
                          QStringLiteral("unsupported_value"));
    if (builtInItemTypes().contains(type))
        return check.fail(typePath,
                          QStringLiteral("'%1' items belong to a built-in tool that runs on OpenAI's own servers; Switchboard's "
                                         "upstreams cannot continue them. Remove the item, or use function tools.")
                              .arg(type),
                          QStringLiteral("unsupported_value"));
    return check.unsupportedValue(typePath, type, itemTypes());
}

bool ItemTranslator::message(Check &check, const QJsonObject &item, const QString &path)
{
    QString role;
    if (!check.requiredString(item, kRole, path, &role))
        return false;
    if (!roles().contains(role))
        return check.unsupportedValue(memberPath(path, kRole), role, roles());
    const QJsonValue content = item.value(kContent);
    const QString contentPath = memberPath(path, kContent);
    if (!given(content))
        return check.missing(contentPath, QStringLiteral("Send the message's text, or a list of content parts."));
    if (!content.isString() && !content.isArray())
        return check.wrongType(contentPath, content, QStringLiteral("a string or an array of content parts"));

    if (role == QLatin1String("assistant")) {
        QStringList texts;
        if (!assistantText(check, content, contentPath, &texts))
            return false;
        flushAttachments();
        flushAssistant();
        // Held open: function calls right after it join the same chat message.
        m_assistantTexts = texts;
        m_assistantOpen = true;
        return true;
    }

    // Chat's system role is the one every dialect understands; some OpenAI-compatible servers refuse
    // "developer", which OpenAI gives the same place.
    const bool systemRole = role != QLatin1String("user");
    QJsonValue chat = content;
    if (content.isArray()) {
        QJsonArray parts;
        if (!inputParts(check, content.toArray(), contentPath, systemRole, &parts))
            return false;
        chat = chatContent(parts);
    }
    flushAttachments();
    flushAssistant();
    m_messages.append(QJsonObject{{kRole, systemRole ? QStringLiteral("system") : role}, {kContent, chat}});
    return true;
}

bool ItemTranslator::assistantText(Check &check, const QJsonValue &content, const QString &path, QStringList *texts)
{
    if (content.isString()) {
        if (!content.toString().isEmpty())
            *texts << content.toString();
        return true;
    }
    const QJsonArray parts = content.toArray();
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QString partPath = indexPath(path, i);
        QJsonObject part;
        QString type;
        if (!partType(check, parts.at(i), partPath, &part, &type))
            return false;
        QString text;
        if (type == QLatin1String("output_text") || type == QLatin1String("input_text")) {
            if (!check.requiredString(part, kText, partPath, &text))
                return false;
        } else if (type == QLatin1String("refusal")) {
            // What the model said when it refused; the upstream reads it as the turn's words.
            if (!check.requiredString(part, QLatin1String("refusal"), partPath, &text))
                return false;
        } else {
            return check.fail(memberPath(partPath, kType),
                              QStringLiteral("Invalid value: '%1'. An assistant message takes 'output_text' and 'refusal' parts.")
                                  .arg(shownValue(type)));
        }
        if (!text.isEmpty())
            *texts << text;
    }
    return true;
}

bool ItemTranslator::inputParts(Check &check, const QJsonArray &parts, const QString &path, bool systemRole, QJsonArray *out)
{
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QString partPath = indexPath(path, i);
        QJsonObject part;
        QString type;
        if (!partType(check, parts.at(i), partPath, &part, &type))
            return false;
        if (type == QLatin1String("input_text")) {
            QString text;
            if (!check.requiredString(part, kText, partPath, &text))
                return false;
            out->append(textPart(text));
            continue;
        }
        const bool media = type == QLatin1String("input_image") || type == QLatin1String("input_file");
        if (media && systemRole)
            // Chat system messages take text only.
            return check.fail(memberPath(partPath, kType),
                              QStringLiteral("A system or developer message takes text only: send '%1' parts in a user message.")
                                  .arg(type));
        QJsonObject chatPart;
        if (type == QLatin1String("input_image")) {
            if (!imagePart(check, part, partPath, m_dropped, &chatPart))
                return false;
        } else if (type == QLatin1String("input_file")) {
            if (!filePart(check, part, partPath, m_dropped, &chatPart))
                return false;
        } else if (type == QLatin1String("output_text") || type == QLatin1String("refusal")) {
            return check.fail(memberPath(partPath, kType),
                              QStringLiteral("Invalid value: '%1'. It belongs in an assistant message; this message takes "
                                             "'input_text', 'input_image' and 'input_file' parts.")
                                  .arg(type));
        } else {
            return check.unsupportedValue(memberPath(partPath, kType), type,
                                          {QStringLiteral("input_text"), QStringLiteral("input_image"), QStringLiteral("input_file")});
        }
        out->append(chatPart);
    }
    return true;
}

bool ItemTranslator::toolCall(Check &check, const QJsonObject &item, const QString &type, const QString &path)
{
    QString callId, name, arguments;
    if (!check.requiredString(item, kCallId, path, &callId, true,
                              QStringLiteral("Send the call_id the model gave this call; its output names the same id."))
        || !check.requiredString(item, kName, path, &name, true))
        return false;
    if (type == QLatin1String("custom_tool_call")) {
        // A custom tool goes up as a function of one string parameter "input".
        QString input;
        if (!check.requiredString(item, QLatin1String("input"), path, &input))
            return false;
        arguments = QString::fromUtf8(compactJson(QJsonObject{{QStringLiteral("input"), input}}));
    } else {
        if (!check.requiredString(item, QLatin1String("arguments"), path, &arguments, false,
                                  QStringLiteral("Send the call's arguments as a JSON string, as the model gave them.")))
            return false;
        // A custom tool's call kept as a function_call with its raw input: the upstream sees every
        // call of that tool in the one shape it was offered.
        if (m_customTools.contains(name)) {
            const QJsonDocument parsed = QJsonDocument::fromJson(arguments.toUtf8());
            if (!parsed.isObject() || !parsed.object().value(QLatin1String("input")).isString())
                arguments = QString::fromUtf8(compactJson(QJsonObject{{QStringLiteral("input"), arguments}}));
        }
    }
    flushAttachments();
    if (!m_assistantOpen) {
        m_assistantTexts.clear();
        m_assistantOpen = true;
    }
    m_toolCalls.append(QJsonObject{
        {QStringLiteral("id"), callId},
        {kType, QStringLiteral("function")},
        {QStringLiteral("function"), QJsonObject{{kName, name}, {QStringLiteral("arguments"), arguments}}}});
    return true;
}

bool ItemTranslator::toolOutput(Check &check, const QJsonObject &item, const QString &path)
{
    QString callId;
    if (!check.requiredString(item, kCallId, path, &callId, true,
                              QStringLiteral("Send the call_id of the call this output answers.")))
        return false;
    const QJsonValue output = item.value(kOutput);
    const QString outputPath = memberPath(path, kOutput);
    if (!given(output))
        return check.missing(outputPath, QStringLiteral("Send the tool's result as a string, or a list of content parts."));

    QString text;
    QJsonArray attachments;
    if (output.isString()) {
        text = output.toString();
    } else if (output.isArray()) {
        QJsonArray parts;
        if (!inputParts(check, output.toArray(), outputPath, false, &parts))
            return false;
        QStringList texts;
        for (const QJsonValue &part : std::as_const(parts)) {
            // Chat tool messages carry text only: images and files ride in a user message after them.
            if (part.toObject().value(kType).toString() == kText)
                texts << part.toObject().value(kText).toString();
            else
                attachments.append(part);
        }
        text = texts.join(QLatin1Char('\n'));
        if (text.isEmpty() && !attachments.isEmpty())
            text = attachedNote();
    } else {
        return check.wrongType(outputPath, output, QStringLiteral("a string or an array of content parts"));
    }

    flushAssistant();
    m_messages.append(QJsonObject{{kRole, QStringLiteral("tool")}, {QStringLiteral("tool_call_id"), callId}, {kContent, text}});
    for (const QJsonValue &a : std::as_const(attachments))
        m_attachments.append(a);
    return true;
}

void ItemTranslator::flushAssistant()
{
    if (!m_assistantOpen)
        return;
    m_assistantOpen = false;
    if (m_assistantTexts.isEmpty() && m_toolCalls.isEmpty())
        return; // an assistant message without words: nothing an upstream can be shown
    QJsonObject message{{kRole, QStringLiteral("assistant")},
                        {kContent, m_assistantTexts.isEmpty() ? QJsonValue(QJsonValue::Null)
                                                              : QJsonValue(m_assistantTexts.join(QLatin1Char('\n')))}};
    if (!m_toolCalls.isEmpty())
        message.insert(QStringLiteral("tool_calls"), m_toolCalls);
    m_messages.append(message);
    m_assistantTexts.clear();
    m_toolCalls = QJsonArray();
}

void ItemTranslator::flushAttachments()
{
    if (m_attachments.isEmpty())
        return;
    m_messages.append(QJsonObject{{kRole, QStringLiteral("user")}, {kContent, m_attachments}});
    m_attachments = QJsonArray();
}

} // namespace

bool normalizedInput(const QJsonValue &input, Check &check, QJsonArray *items)
{
    const QString path = QStringLiteral("input");
    if (input.isString()) {
        items->append(QJsonObject{{kType, QStringLiteral("message")},
                                  {kRole, QStringLiteral("user")},
                                  {kContent, QJsonArray{QJsonObject{{kType, QStringLiteral("input_text")}, {kText, input.toString()}}}}});
        return true;
    }
    if (!input.isArray())
        return check.wrongType(path, input, QStringLiteral("a string or an array of input items"));
    const QJsonArray list = input.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QJsonValue value = list.at(i);
        QJsonObject item = value.toObject();
        if (value.isObject() && !given(item.value(kType)) && item.contains(kRole)) {
            item.insert(kType, QStringLiteral("message"));
            items->append(item);
        } else {
            items->append(value);
        }
    }
    return true;
}

QJsonArray itemsToChat(const QJsonArray &items, const QSet<QString> &customTools, Check *check, QStringList *dropped,
                       const QString &path)
{
    ItemTranslator translator(customTools, dropped);
    for (qsizetype i = 0; i < items.size(); ++i) {
        Check itemCheck;
        if (translator.item(itemCheck, items.at(i), indexPath(path, i)))
            continue;
        if (check) {
            check->error = itemCheck.error;
            return QJsonArray();
        }
        noteDropped(dropped, QStringLiteral("stored items that do not translate"));
    }
    return translator.finish();
}

} // namespace sb::responses
