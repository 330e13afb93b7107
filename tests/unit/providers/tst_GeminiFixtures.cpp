// Every gemini wire fixture (tests/fixtures/gemini/manifest.json) through the dialect's ErrorMap
// (ProviderAdapter::classify + chatResponse) and its StreamTranslator, the streams cut into 5-byte
// pieces and parsed by the real SseParser. The test functions are ManifestFixtureTest's, the same
// for every dialect with a manifest.
#include "providers/gemini/GeminiAdapter.h"

#include "DialectFixtures.h"

#include <QtTest>

using namespace sb;

class tst_GeminiFixtures : public test::ManifestFixtureTest {
    Q_OBJECT
public:
    tst_GeminiFixtures() : ManifestFixtureTest(QStringLiteral("gemini"), std::make_unique<GeminiAdapter>()) {}
};

QTEST_APPLESS_MAIN(tst_GeminiFixtures)
#include "tst_GeminiFixtures.moc"
