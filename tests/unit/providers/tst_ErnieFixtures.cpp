// Every ernie wire fixture (tests/fixtures/ernie/manifest.json) through the dialect's ErrorMap
// (ProviderAdapter::classify + chatResponse) and its StreamTranslator, the streams cut into 5-byte
// pieces and parsed by the real SseParser. The test functions are ManifestFixtureTest's, the same
// for every dialect with a manifest.
#include "providers/ernie/ErnieAdapter.h"

#include "DialectFixtures.h"

#include <QtTest>

using namespace sb;

class tst_ErnieFixtures : public test::ManifestFixtureTest {
    Q_OBJECT
public:
    tst_ErnieFixtures() : ManifestFixtureTest(QStringLiteral("ernie"), std::make_unique<ErnieAdapter>()) {}
};

QTEST_APPLESS_MAIN(tst_ErnieFixtures)
#include "tst_ErnieFixtures.moc"
