#include "frontends/openai_responses/ResponsesTools.h"

#include <QJsonObject>

namespace sb::responses {

namespace {

const QLatin1String kType("type"), kName("name"), kFunction("function"), kDescription("description");

// Clients ported from Chat Completions nest a tool's name under "function"; the Responses API has it
// at the top level, and saying so beats a bare "missing name".
QString nestedFunctionHint(const QJsonObject &object)
{
    if (!object.value(kFunction).isObject())
        return QString();
    return QStringLiteral("In the Responses API the name sits at the top level ({\"type\": \"function\", \"name\": \"…\"}), "
                          "not under \"function\" as in Chat Completions.");
}

QString builtInToolMessage(const QString &type)
{
    QString message = QStringLiteral("The built-in tool '%1' runs on OpenAI's own servers and Switchboard's upstreams cannot run it; "
                                     "remove it or declare a function tool instead.")
                          .arg(shownValue(type));
    // Codex CLI offers web search unless told not to: say how, since that is who meets this most.
    if (type.startsWith(QLatin1String("web_search")))
        message += QStringLiteral(" In Codex CLI, set web_search = \"disabled\" in config.toml.");
    return message;
}

// What the model is told about a custom tool's one parameter. A grammar cannot be enforced by a chat
// upstream, so the model is shown it instead.
QString customInputDescription(const QString &syntax, const QString &definition)
{
    if (definition.isEmpty())
        return QStringLiteral("The tool's whole input, as plain text.");
    const QString grammar = syntax == QLatin1String("regex") ? QStringLiteral("regular expression") : QStringLiteral("Lark grammar");
    return QStringLiteral("The tool's whole input, as plain text. It must match this %1:\n%2").arg(grammar, definition);
}

bool functionTool(Check &check, const QJsonObject &tool, const QString &path, QString *name, QJsonObject *out)
{
    QString description;
    std::optional<bool> strict;
    if (!check.requiredString(tool, kName, path, name, true, nestedFunctionHint(tool))
        || !check.optionalString(tool, kDescription, path, &description) || !check.optionalBool(tool, QLatin1String("strict"), path, &strict))
        return false;
    const QJsonValue parameters = tool.value(QLatin1String("parameters"));
    if (given(parameters) && !parameters.isObject())
        return check.wrongType(memberPath(path, QLatin1String("parameters")), parameters,
                               QStringLiteral("an object (a JSON Schema)"));
    QJsonObject function{{kName, *name}};
    if (!description.isEmpty())
        function.insert(kDescription, description);
    if (parameters.isObject())
        function.insert(QStringLiteral("parameters"), parameters);
    if (strict)
        function.insert(QStringLiteral("strict"), *strict);
    *out = QJsonObject{{kType, kFunction}, {kFunction, function}};
    return true;
}

bool customTool(Check &check, const QJsonObject &tool, const QString &path, QString *name, QJsonObject *out,
                QStringList *dropped)
{
    QString description;
    if (!check.requiredString(tool, kName, path, name, true) || !check.optionalString(tool, kDescription, path, &description))
        return false;
    QString syntax, definition;
    const QJsonValue format = tool.value(QLatin1String("format"));
    const QString formatPath = memberPath(path, QLatin1String("format"));
    if (given(format)) {
        if (!format.isObject())
            return check.wrongType(formatPath, format, QStringLiteral("an object such as {\"type\": \"text\"}"));
        const QJsonObject f = format.toObject();
        QString type;
        if (!check.requiredString(f, kType, formatPath, &type))
            return false;
        if (type == QLatin1String("grammar")) {
            if (!check.requiredString(f, QLatin1String("syntax"), formatPath, &syntax)
                || !check.requiredString(f, QLatin1String("definition"), formatPath, &definition, true))
                return false;
            if (syntax != QLatin1String("lark") && syntax != QLatin1String("regex"))
                return check.unsupportedValue(memberPath(formatPath, QLatin1String("syntax")), syntax,
                                              {QStringLiteral("lark"), QStringLiteral("regex")});
            noteDropped(dropped, QStringLiteral("custom tool grammars (shown to the model as a description)"));
        } else if (type != QLatin1String("text")) {
            return check.unsupportedValue(memberPath(formatPath, kType), type, {QStringLiteral("text"), QStringLiteral("grammar")});
        }
    }
    const QJsonObject input{{kType, QStringLiteral("string")}, {kDescription, customInputDescription(syntax, definition)}};
    QJsonObject function{{kName, *name},
                         {QStringLiteral("parameters"),
                          QJsonObject{{kType, QStringLiteral("object")},
                                      {QStringLiteral("properties"), QJsonObject{{QStringLiteral("input"), input}}},
                                      {QStringLiteral("required"), QJsonArray{QStringLiteral("input")}},
                                      {QStringLiteral("additionalProperties"), false}}}};
    if (!description.isEmpty())
        function.insert(kDescription, description);
    *out = QJsonObject{{kType, kFunction}, {kFunction, function}};
    return true;
}

QSet<QString> functionNames(const QJsonArray &chatTools)
{
    QSet<QString> names;
    for (const QJsonValue &tool : chatTools)
        names.insert(tool.toObject().value(kFunction).toObject().value(kName).toString());
    return names;
}

// {"type": "function"|"custom", "name": …} naming a declared tool: its name.
bool namedTool(Check &check, const QJsonObject &object, const QString &path, const QSet<QString> &declared, QString *name)
{
    QString type;
    if (!check.requiredString(object, kType, path, &type))
        return false;
    if (type != QLatin1String("function") && type != QLatin1String("custom"))
        return check.fail(memberPath(path, kType), builtInToolMessage(type), QStringLiteral("unsupported_value"));
    if (!check.requiredString(object, kName, path, name, true, nestedFunctionHint(object)))
        return false;
    if (!declared.contains(*name))
        return check.fail(memberPath(path, kName),
                          QStringLiteral("No %1 tool named '%2' is declared in 'tools'. Declare it there, or choose one that is.")
                              .arg(type, shownValue(*name)));
    return true;
}

bool allowedTools(Check &check, const QJsonObject &choice, QJsonArray *chatTools, QJsonValue *out)
{
    const QString path = QStringLiteral("tool_choice");
    QString mode;
    if (!check.requiredString(choice, QLatin1String("mode"), path, &mode))
        return false;
    if (mode != QLatin1String("auto") && mode != QLatin1String("required"))
        return check.unsupportedValue(memberPath(path, QLatin1String("mode")), mode, {QStringLiteral("auto"), QStringLiteral("required")});
    const QJsonValue list = choice.value(QLatin1String("tools"));
    const QString listPath = memberPath(path, QLatin1String("tools"));
    if (!given(list))
        return check.missing(listPath, QStringLiteral("List the tools the model may call, such as {\"type\": \"function\", \"name\": \"get_weather\"}."));
    if (!list.isArray())
        return check.wrongType(listPath, list, QStringLiteral("an array of tools"));
    const QSet<QString> declared = functionNames(*chatTools);
    QSet<QString> allowed;
    const QJsonArray entries = list.toArray();
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const QString entryPath = indexPath(listPath, i);
        if (!entries.at(i).isObject())
            return check.wrongType(entryPath, entries.at(i), QStringLiteral("an object such as {\"type\": \"function\", \"name\": \"get_weather\"}"));
        QString name;
        if (!namedTool(check, entries.at(i).toObject(), entryPath, declared, &name))
            return false;
        allowed.insert(name);
    }
    // The restriction as the tools offered: every dialect honours that, where few know
    // allowed_tools. The cost is a tool list that changes between requests (OpenAI's prompt cache).
    QJsonArray narrowed;
    for (const QJsonValue &tool : std::as_const(*chatTools))
        if (allowed.contains(tool.toObject().value(kFunction).toObject().value(kName).toString()))
            narrowed.append(tool);
    *chatTools = narrowed;
    *out = mode;
    return true;
}

} // namespace

namespace {

// One declared tool → its chat function tool(s) in *out; a namespace (a group of tools under one
// name, as Codex CLI declares its sub-agent tools) gives each of its tools, under their own names.
bool declareTool(const QJsonValue &value, const QString &path, Check &check, QJsonArray *out, QSet<QString> *names,
                 QSet<QString> *customTools, QStringList *dropped, bool nested)
{
    if (!value.isObject())
        return check.wrongType(path, value, QStringLiteral("an object such as {\"type\": \"function\", \"name\": …}"));
    const QJsonObject tool = value.toObject();
    QString type;
    if (!check.requiredString(tool, kType, path, &type, false, QStringLiteral("Declare your own tools as \"function\" or \"custom\".")))
        return false;
    QString name;
    QJsonObject chatTool;
    if (type == QLatin1String("function")) {
        if (!functionTool(check, tool, path, &name, &chatTool))
            return false;
    } else if (type == QLatin1String("custom")) {
        if (!customTool(check, tool, path, &name, &chatTool, dropped))
            return false;
        customTools->insert(name);
    } else if (type == QLatin1String("namespace") && !nested) {
        const QJsonValue members = tool.value(QLatin1String("tools"));
        const QString membersPath = memberPath(path, QLatin1String("tools"));
        if (!members.isArray())
            return check.wrongType(membersPath, members, QStringLiteral("an array of function or custom tools"));
        const QJsonArray list = members.toArray();
        for (qsizetype i = 0; i < list.size(); ++i)
            if (!declareTool(list.at(i), indexPath(membersPath, i), check, out, names, customTools, dropped, true))
                return false;
        return true;
    } else {
        return check.fail(memberPath(path, kType), builtInToolMessage(type), QStringLiteral("unsupported_value"));
    }
    // The answer side tells a custom tool's calls by name: two tools of one name cannot be told apart.
    if (names->contains(name))
        return check.fail(memberPath(path, kName), QStringLiteral("Tool names must be unique: '%1' is declared twice.").arg(shownValue(name)));
    names->insert(name);
    out->append(chatTool);
    return true;
}

} // namespace

bool chatTools(const QJsonValue &tools, Check &check, QJsonArray *out, QSet<QString> *customTools, QStringList *dropped)
{
    if (!given(tools))
        return true;
    if (!tools.isArray())
        return check.wrongType(QStringLiteral("tools"), tools, QStringLiteral("an array of tools"));
    const QJsonArray list = tools.toArray();
    QSet<QString> names;
    for (qsizetype i = 0; i < list.size(); ++i)
        if (!declareTool(list.at(i), indexPath(QStringLiteral("tools"), i), check, out, &names, customTools, dropped, false))
            return false;
    return true;
}

bool chatToolChoice(const QJsonValue &choice, const QSet<QString> &customTools, Check &check, QJsonArray *chatTools,
                    QJsonValue *out)
{
    const QString path = QStringLiteral("tool_choice");
    if (!given(choice))
        return true;
    if (choice.isString()) {
        const QStringList modes{QStringLiteral("auto"), QStringLiteral("none"), QStringLiteral("required")};
        if (!modes.contains(choice.toString()))
            return check.unsupportedValue(path, choice.toString(), modes);
        *out = choice;
        return true;
    }
    if (!choice.isObject())
        return check.wrongType(path, choice, QStringLiteral("a string ('auto', 'none' or 'required') or an object"));
    const QJsonObject object = choice.toObject();
    QString type;
    if (!check.requiredString(object, kType, path, &type))
        return false;
    if (type == QLatin1String("allowed_tools"))
        return allowedTools(check, object, chatTools, out);
    if (type == QLatin1String("function") || type == QLatin1String("custom")) {
        const QSet<QString> functions = functionNames(*chatTools);
        const QSet<QString> &declared = type == QLatin1String("custom") ? customTools : functions;
        QString name;
        if (!namedTool(check, object, path, declared, &name))
            return false;
        // A custom tool is a function upstream, so it is forced the same way.
        *out = QJsonObject{{kType, kFunction}, {kFunction, QJsonObject{{kName, name}}}};
        return true;
    }
    return check.fail(memberPath(path, kType), builtInToolMessage(type) + QStringLiteral(" Choose 'auto', 'required', or a function tool."),
                      QStringLiteral("unsupported_value"));
}

bool chatResponseFormat(const QJsonValue &text, Check &check, QJsonValue *out, QStringList *dropped)
{
    if (!given(text))
        return true;
    if (!text.isObject())
        return check.wrongType(QStringLiteral("text"), text, QStringLiteral("an object such as {\"format\": {\"type\": \"text\"}}"));
    const QJsonObject object = text.toObject();
    QString verbosity;
    if (!check.optionalEnum(object, QLatin1String("verbosity"), QStringLiteral("text"),
                            {QStringLiteral("low"), QStringLiteral("medium"), QStringLiteral("high")}, &verbosity))
        return false;
    if (!verbosity.isEmpty())
        noteDropped(dropped, QStringLiteral("text.verbosity"));

    const QJsonValue format = object.value(QLatin1String("format"));
    const QString path = QStringLiteral("text.format");
    if (!given(format))
        return true;
    if (!format.isObject())
        return check.wrongType(path, format, QStringLiteral("an object such as {\"type\": \"json_schema\", …}"));
    const QJsonObject f = format.toObject();
    QString type;
    if (!check.requiredString(f, kType, path, &type))
        return false;
    if (type == QLatin1String("text"))
        return true;
    if (type == QLatin1String("json_object")) {
        *out = QJsonObject{{kType, QStringLiteral("json_object")}};
        return true;
    }
    if (type != QLatin1String("json_schema"))
        return check.unsupportedValue(memberPath(path, kType), type,
                                      {QStringLiteral("text"), QStringLiteral("json_object"), QStringLiteral("json_schema")});
    QString name, description;
    std::optional<bool> strict;
    if (!check.requiredString(f, kName, path, &name, true, QStringLiteral("Name the format, such as \"calendar_event\"."))
        || !check.optionalString(f, kDescription, path, &description) || !check.optionalBool(f, QLatin1String("strict"), path, &strict))
        return false;
    const QJsonValue schema = f.value(QLatin1String("schema"));
    const QString schemaPath = memberPath(path, QLatin1String("schema"));
    if (!given(schema))
        return check.missing(schemaPath, QStringLiteral("Describe the answer's shape as a JSON Schema object."));
    if (!schema.isObject())
        return check.wrongType(schemaPath, schema, QStringLiteral("an object (a JSON Schema)"));
    QJsonObject jsonSchema{{kName, name}, {QStringLiteral("schema"), schema}};
    if (strict)
        jsonSchema.insert(QStringLiteral("strict"), *strict);
    if (!description.isEmpty())
        jsonSchema.insert(kDescription, description);
    *out = QJsonObject{{kType, QStringLiteral("json_schema")}, {QStringLiteral("json_schema"), jsonSchema}};
    return true;
}

} // namespace sb::responses
