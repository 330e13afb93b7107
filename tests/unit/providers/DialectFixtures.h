#pragma once

#include "providers/ProviderAdapter.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>

#include <memory>
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

// The manifest.json test functions, the same for every dialect that has a manifest: a
// tst_<Dialect>Fixtures derives from this with its adapter and adds nothing else.
class ManifestFixtureTest : public QObject {
    Q_OBJECT
public:
    ManifestFixtureTest(const QString &dialect, std::unique_ptr<const ProviderAdapter> adapter);

private slots:
    void responsesThroughErrorMap_data();
    void responsesThroughErrorMap();
    void streamsThroughTranslator_data();
    void streamsThroughTranslator();
    // Usage still reaches the engine (StreamStep.usage), but the client gets the extra chunk only
    // when it asked for it, as with OpenAI.
    void usageChunkOnlyWhenAsked_data();
    void usageChunkOnlyWhenAsked();
    // Every complete stream, cut before its last event, must end as PROVIDER_DOWN from onEnd():
    // a cut stream is never a clean finish.
    void cutBeforeEndMarkerIsProviderDown_data();
    void cutBeforeEndMarkerIsProviderDown();
    void nothingAfterTheFinish();
    void garbageEventIsProviderDown();

private:
    std::unique_ptr<const ProviderAdapter> m_adapter;
    DialectFixtures m_fixtures;
};

} // namespace sb::test
