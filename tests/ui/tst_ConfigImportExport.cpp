// Settings → Configuration file: Export… with and without "Include API keys", Import… with its
// preview of what changes, saved through the real ConfigStore on a real SQLite file (the engine
// would follow it live), a refused file that changes nothing, and screenshots of the page and of
// the preview.
#include "ProviderTestStore.h"
#include "TestPaths.h"
#include "model/ConfigJson.h"
#include "settings/ConfigFileBox.h"
#include "settings/ImportPreviewDialog.h"
#include "settings/SettingsPage.h"

#include <QCheckBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QSignalSpy>
#include <QTreeWidget>
#include <QtTest>

using namespace sb;

namespace {

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeAll(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

void settle()
{
    for (int round = 0; round < 4; ++round)
        QCoreApplication::processEvents();
}

} // namespace

class tst_ConfigImportExport : public QObject {
    Q_OBJECT
private slots:
    void exportLeavesKeysOutUnlessTheBoxIsTicked()
    {
        test::TestStore disk;
        SettingsPage page;
        page.setConfigStore(&disk.store);
        ConfigFileBox *box = page.configFileBox();
        QVERIFY(box->exportButton()->isEnabled());

        const QString plain = disk.dir.filePath(QStringLiteral("plain.json"));
        QVERIFY(box->exportTo(plain));
        const QByteArray plainBytes = readAll(plain);
        QVERIFY(plainBytes.contains("openai-main"));
        QVERIFY(!plainBytes.contains(test::OpenAiKey1.toUtf8()));
        QVERIFY2(box->statusText().contains(QStringLiteral("left out")), qPrintable(box->statusText()));

        box->includeKeysBox()->setChecked(true);
        const QString withKeys = disk.dir.filePath(QStringLiteral("keys.json"));
        QVERIFY(box->exportTo(withKeys));
        QVERIFY(readAll(withKeys).contains(test::OpenAiKey1.toUtf8()));
        QCOMPARE(QFile::permissions(withKeys) & (QFileDevice::ReadGroup | QFileDevice::ReadOther), QFileDevice::Permissions());
        QVERIFY2(box->statusText().contains(QStringLiteral("readable by you only")), qPrintable(box->statusText()));
    }

    void importPreviewsTheChangesThenSavesThemInOneGo()
    {
        test::TestStore disk;
        SettingsPage page;
        page.resize(1100, 800);
        page.setConfigStore(&disk.store);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));

        // The file a user brings: exported here, then edited by hand (keys left out).
        QJsonObject json = exportConfigJson(*disk.store.current()).json;
        QJsonArray routes = json.value(QStringLiteral("routes")).toArray();
        routes.removeAt(2); // claude
        routes.append(QJsonObject{{QStringLiteral("model"), QStringLiteral("fast")},
                                  {QStringLiteral("channels"), QJsonArray{QStringLiteral("mini/A")}}});
        json.insert(QStringLiteral("routes"), routes);
        QJsonArray providers = json.value(QStringLiteral("providers")).toArray();
        QJsonObject openai = providers[0].toObject();
        openai.insert(QStringLiteral("requests_per_minute"), 1200);
        providers[0] = openai;
        json.insert(QStringLiteral("providers"), providers);
        QJsonArray channels = json.value(QStringLiteral("channels")).toArray();
        channels.append(QJsonObject{{QStringLiteral("name"), QStringLiteral("mini/B")},
                                    {QStringLiteral("provider"), QStringLiteral("openai-main")},
                                    {QStringLiteral("upstream_model"), QStringLiteral("gpt-4o-mini")}});
        json.insert(QStringLiteral("channels"), channels);
        QJsonObject settings = json.value(QStringLiteral("settings")).toObject();
        QJsonObject health = settings.value(QStringLiteral("health")).toObject();
        health.insert(QStringLiteral("window_s"), 120);
        settings.insert(QStringLiteral("health"), health);
        json.insert(QStringLiteral("settings"), settings);
        const QString file = disk.dir.filePath(QStringLiteral("team.json"));
        writeAll(file, QJsonDocument(json).toJson());

        QSignalSpy changed(&disk.store, &ConfigStore::configChanged);
        ImportPreviewDialog *dialog = page.configFileBox()->previewImport(file);
        QVERIFY(dialog);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        const QStringList lines = dialog->changeLines();
        QVERIFY2(lines.contains(QStringLiteral("Providers / ~ openai-main (requests_per_minute)")), qPrintable(lines.join('\n')));
        QVERIFY2(lines.contains(QStringLiteral("Channels / + mini/B")), qPrintable(lines.join('\n')));
        QVERIFY2(lines.contains(QStringLiteral("Routes / + fast")), qPrintable(lines.join('\n')));
        QVERIFY2(lines.contains(QStringLiteral("Routes / − claude")), qPrintable(lines.join('\n')));
        QVERIFY2(lines.contains(QStringLiteral("Settings / ~ health.window_s: 300 → 120")), qPrintable(lines.join('\n')));
        QVERIFY2(dialog->keysText().contains(QStringLiteral("3 keeping the secret stored here")), qPrintable(dialog->keysText()));
        QVERIFY(dialog->importButton()->isEnabled());
        QCOMPARE(changed.count(), 0); // a preview writes nothing
        QCOMPARE(disk.reload()->routes.size(), std::size_t(3));

        dialog->resize(640, 520);
        settle();
        const QString shot = test::artifactPath(QStringLiteral("settings/import-preview.png"));
        QVERIFY(dialog->grab().save(shot));
        qInfo("screenshot %s", qPrintable(shot));

        QSignalSpy imported(page.configFileBox(), &ConfigFileBox::imported);
        QPointer<ImportPreviewDialog> open(dialog);
        dialog->importButton()->click();
        QCOMPARE(imported.count(), 1);
        QTRY_VERIFY(open.isNull()); // closed (and deleted) once saved
        QCOMPARE(changed.count(), 1); // one save: the engine follows it live
        const EngineConfigPtr stored = disk.reload();
        QVERIFY(stored->route(u"fast"));
        QVERIFY(!stored->route(u"claude"));
        QCOMPARE(stored->providers[0].requestsPerMinute, 1200);
        QCOMPARE(stored->providers[0].keys[0].secret, test::OpenAiKey1); // kept: the file had no secret
        QCOMPARE(stored->health.window, std::chrono::seconds(120));
        QVERIFY2(page.configFileBox()->statusText().contains(QStringLiteral("Imported")), qPrintable(page.configFileBox()->statusText()));
        settle();
        const QString pageShot = test::artifactPath(QStringLiteral("settings/settings-after-import.png"));
        QVERIFY(page.grab().save(pageShot));
        qInfo("screenshot %s", qPrintable(pageShot));
    }

    void aFileThatCannotWorkIsShownWithItsSentenceAndImportsNothing()
    {
        test::TestStore disk;
        SettingsPage page;
        page.setConfigStore(&disk.store);
        const QString file = disk.dir.filePath(QStringLiteral("broken.json"));
        writeAll(file, "{\"providers\": [{\"name\": \"p\", \"dialect\": \"openai\", \"base_url\": \"https://api.openai.com/v1\"}]}");
        QSignalSpy changed(&disk.store, &ConfigStore::configChanged);
        ImportPreviewDialog *dialog = page.configFileBox()->previewImport(file);
        QVERIFY(dialog);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QVERIFY(!dialog->importButton()->isEnabled());
        QVERIFY2(dialog->problemsText().contains(QStringLiteral("did you mean \"openai_compat\"")), qPrintable(dialog->problemsText()));
        settle();
        const QString shot = test::artifactPath(QStringLiteral("settings/import-refused.png"));
        QVERIFY(dialog->grab().save(shot));
        qInfo("screenshot %s", qPrintable(shot));
        dialog->reject();
        QCOMPARE(changed.count(), 0);
        QCOMPARE(disk.reload()->providers.size(), std::size_t(2));
    }

    void withoutADatabaseThereIsNothingToExportOrImport()
    {
        SettingsPage page;
        page.setConfigStore(nullptr);
        QVERIFY(!page.configFileBox()->exportButton()->isEnabled());
        QVERIFY(!page.configFileBox()->importButton()->isEnabled());
        QVERIFY(!page.configFileBox()->statusText().isEmpty());
    }
};

QTEST_MAIN(tst_ConfigImportExport)
#include "tst_ConfigImportExport.moc"
