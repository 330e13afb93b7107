#include "DialectRows.h"

#include <QtTest>

namespace sb::test {

const QStringList &simDialects()
{
    static const QStringList dialects{QStringLiteral("openai_compat"), QStringLiteral("anthropic"), QStringLiteral("gemini"),
                                      QStringLiteral("dashscope"), QStringLiteral("ernie")};
    return dialects;
}

void addDialectStreamRows()
{
    QTest::addColumn<QString>("dialect");
    QTest::addColumn<bool>("stream");
    for (const QString &dialect : simDialects())
        for (bool stream : {false, true})
            QTest::addRow("%s %s", qPrintable(dialect), stream ? "stream" : "whole") << dialect << stream;
}

} // namespace sb::test
