// Every ernie wire fixture (tests/fixtures/ernie/manifest.json) through the dialect's ErrorMap
// (ProviderAdapter::classify + chatResponse) and its StreamTranslator, the streams cut into 5-byte
// pieces and parsed by the real SseParser. The checks are DialectFixtures', shared by every dialect.
#include "providers/ernie/ErnieAdapter.h"

#include "DialectFixtures.h"

#include <QtTest>

using namespace sb;

class tst_ErnieFixtures : public QObject {
    Q_OBJECT
private slots:
    void responsesThroughErrorMap_data() { m_fixtures.addManifestRows("responses"); }
    void responsesThroughErrorMap()
    {
        QFETCH(QJsonObject, c);
        m_fixtures.responsesThroughErrorMap(c);
    }

    void streamsThroughTranslator_data() { m_fixtures.addManifestRows("streams"); }
    void streamsThroughTranslator()
    {
        QFETCH(QJsonObject, c);
        m_fixtures.streamsThroughTranslator(c);
    }

    // Usage still reaches the engine (StreamStep.usage), but the client gets the extra chunk only
    // when it asked for it, as with OpenAI.
    void usageChunkOnlyWhenAsked_data() { m_fixtures.addManifestRows("streams"); }
    void usageChunkOnlyWhenAsked()
    {
        QFETCH(QJsonObject, c);
        m_fixtures.usageChunkOnlyWhenAsked(c);
    }

    // Every complete stream, cut before its last event, must end as PROVIDER_DOWN from onEnd():
    // a cut stream is never a clean finish.
    void cutBeforeEndMarkerIsProviderDown_data() { m_fixtures.addManifestRows("streams"); }
    void cutBeforeEndMarkerIsProviderDown()
    {
        QFETCH(QJsonObject, c);
        m_fixtures.cutBeforeEndMarkerIsProviderDown(c);
    }

    void nothingAfterTheFinish() { m_fixtures.nothingAfterTheFinish(); }
    void garbageEventIsProviderDown() { m_fixtures.garbageEventIsProviderDown(); }

private:
    const ErnieAdapter m_adapter;
    const test::DialectFixtures m_fixtures{QStringLiteral("ernie"), &m_adapter};
};

QTEST_APPLESS_MAIN(tst_ErnieFixtures)
#include "tst_ErnieFixtures.moc"
