// Every dashscope wire fixture (tests/fixtures/dashscope/manifest.json) through the dialect's ErrorMap
// (ProviderAdapter::classify + chatResponse) and its StreamTranslator, the streams cut into 5-byte
// pieces and parsed by the real SseParser. The test functions are ManifestFixtureTest's, the same
// for every dialect with a manifest.
#include "providers/dashscope/DashScopeAdapter.h"

#include "DialectFixtures.h"

#include <QtTest>

using namespace sb;

class tst_DashScopeFixtures : public test::ManifestFixtureTest {
    Q_OBJECT
public:
    tst_DashScopeFixtures() : ManifestFixtureTest(QStringLiteral("dashscope"), std::make_unique<DashScopeAdapter>()) {}
};

QTEST_APPLESS_MAIN(tst_DashScopeFixtures)
#include "tst_DashScopeFixtures.moc"
