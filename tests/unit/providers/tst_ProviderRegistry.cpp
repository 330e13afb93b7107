#include "model/DialectRules.h"
#include "providers/ProviderRegistry.h"

#include <QtTest>

#include <set>

using namespace sb;

class tst_ProviderRegistry : public QObject {
    Q_OBJECT
private slots:
    void findsRegisteredDialects()
    {
        for (const char *name : {"openai_compat", "anthropic"}) {
            const ProviderAdapter *adapter = ProviderRegistry::find(QString::fromLatin1(name));
            QVERIFY2(adapter, name);
            QCOMPARE(adapter->dialect(), QString::fromLatin1(name));
            QVERIFY(!adapter->displayName().isEmpty());
            QVERIFY(QUrl(adapter->defaultBaseUrl()).isValid());
            // The same instance every time: adapters are shared, stateless singletons.
            QCOMPARE(ProviderRegistry::find(QString::fromLatin1(name)), adapter);
        }
    }

    void unknownDialectIsNull()
    {
        QCOMPARE(ProviderRegistry::find(u"nonesuch"), nullptr);
        QCOMPARE(ProviderRegistry::find(u""), nullptr);
        QCOMPARE(ProviderRegistry::find(u"OpenAI_Compat"), nullptr); // names are exact, as stored in config
    }

    void allListsEachDialectOnceInOrder()
    {
        const auto all = ProviderRegistry::all();
        QVERIFY(all.size() >= 2);
        std::set<QString> names;
        for (const ProviderAdapter *adapter : all)
            QVERIFY2(names.insert(adapter->dialect()).second, qPrintable(adapter->dialect()));
        QCOMPARE(all.front()->dialect(), QStringLiteral("openai_compat")); // the dialog's default
        QCOMPARE(ProviderRegistry::dialects().size(), qsizetype(all.size()));
        QCOMPARE(ProviderRegistry::dialects().front(), QStringLiteral("openai_compat"));
    }

    void theConfigurationKnowsExactlyTheRegisteredDialects()
    {
        // model/ cannot see the adapters, so it keeps its own list to refuse an unknown dialect at
        // load; a dialect added here and not there would be refused, one removed would load and fail.
        QCOMPARE(knownDialectNames(), ProviderRegistry::dialects());
        for (const ProviderAdapter *adapter : ProviderRegistry::all())
            QVERIFY2(findDialectRule(adapter->dialect()), qPrintable(adapter->dialect()));
    }
};

QTEST_APPLESS_MAIN(tst_ProviderRegistry)
#include "tst_ProviderRegistry.moc"
