#pragma once

#include "providers/ProviderAdapter.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace sb::test {

// The recorded wire fixtures of one dialect (tests/fixtures/<dialect>/) run through its ErrorMap and
// StreamTranslator. The tst_* executables keep their own test functions and rows; the checks live
// here so that every dialect is held to the same assertions. Check functions use QVERIFY/QCOMPARE:
// call each as the last statement of a test function, so a failure ends that test function.
class DialectFixtures {
public:
    // Without an adapter, the one ProviderRegistry lists for the dialect.
    explicit DialectFixtures(QString dialect, const ProviderAdapter *adapter = nullptr);

    const ProviderAdapter &adapter() const { return *m_adapter; }
    QByteArray readFixture(const QString &name) const;

    // --- manifest.json (gemini, dashscope, ernie): rows are {file, status, expect, …}; the stream
    // is cut into 5-byte pieces. Each check is named after the test function that calls it.
    void addManifestRows(const char *section) const;
    void responsesThroughErrorMap(const QJsonObject &c) const;
    void streamsThroughTranslator(const QJsonObject &c) const;
    void usageChunkOnlyWhenAsked(const QJsonObject &c) const;
    void cutBeforeEndMarkerIsProviderDown(const QJsonObject &c) const;
    void nothingAfterTheFinish() const;
    void garbageEventIsProviderDown() const;

    // --- cases.json (openai_compat, anthropic): rows are named; a section must hold at least
    // `minimumRows` cases so a truncated manifest cannot pass quietly.
    void addCaseRows(const char *section, qsizetype minimumRows) const;
    void errorFixture(const QJsonObject &fixture) const;
    void streamFixture(const QJsonObject &fixture) const;

    struct StreamResult {
        QList<QByteArray> chunks;
        bool finished = false;
        std::optional<Outcome> error;
        std::optional<TokenUsage> usage;
    };
    // What the engine does with a stream: bytes → SseParser → translator, stopping at the first error.
    StreamResult runStream(const QJsonObject &request, const QList<QByteArray> &pieces) const;

private:
    QJsonObject manifest(const QString &file) const;

    QString m_dialect;
    const ProviderAdapter *m_adapter = nullptr;
};

} // namespace sb::test
