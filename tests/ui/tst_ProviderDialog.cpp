#include "ProviderTestStore.h"
#include "TestPaths.h"
#include "common/SecretMask.h"
#include "providers/KeyDialog.h"
#include "providers/KeyTableModel.h"
#include "providers/ProviderDialog.h"
#include "providers/ProviderRegistry.h"

#include <QtTest>
#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QSpinBox>
#include <QSqlQuery>
#include <QTableView>
#include <QTemporaryDir>

using namespace sb;
using namespace std::chrono_literals;

namespace {

template <class T>
T *child(QWidget *root, const char *name)
{
    T *w = root->findChild<T *>(QLatin1String(name));
    if (!w)
        qFatal("no widget named %s", name);
    return w;
}

QPushButton *saveButton(QWidget *dialog)
{
    return child<QDialogButtonBox>(dialog, "buttonBox")->button(QDialogButtonBox::Save);
}

void setText(QWidget *dialog, const char *name, const QString &text)
{
    auto *edit = child<QLineEdit>(dialog, name);
    edit->selectAll();
    if (text.isEmpty())
        QTest::keyClick(edit, Qt::Key_Backspace);
    else
        QTest::keyClicks(edit, text); // typed, so it counts as the user's own text
}

void selectDialect(QWidget *dialog, const QString &dialect)
{
    auto *combo = child<QComboBox>(dialog, "dialectCombo");
    combo->setCurrentIndex(combo->findData(dialect));
}

const ProviderConfig *byName(const EngineConfig &config, const QString &name)
{
    for (const auto &p : config.providers)
        if (p.name == name)
            return &p;
    return nullptr;
}

// Adds a key the way a user does: "+ Add key", type into the key dialog, Save.
void addKeyThroughDialog(ProviderDialog &dialog, const QString &secret, const QString &label)
{
    child<QPushButton>(&dialog, "addKeyButton")->click();
    auto *keyDialog = dialog.findChild<KeyDialog *>();
    QVERIFY(keyDialog);
    QVERIFY(keyDialog->isVisible());
    QTest::keyClicks(child<QLineEdit>(keyDialog, "secretEdit"), secret);
    QTest::keyClicks(child<QLineEdit>(keyDialog, "labelEdit"), label);
    saveButton(keyDialog)->click();
    QTRY_VERIFY(!dialog.findChild<KeyDialog *>()); // closed and deleted
}

} // namespace

class tst_ProviderDialog : public QObject {
    Q_OBJECT
private slots:
    void choosingADialectFillsUrlAndName()
    {
        test::TestStore t;
        ProviderDialog dialog(t.store, 0);
        auto *url = child<QLineEdit>(&dialog, "baseUrlEdit");
        auto *name = child<QLineEdit>(&dialog, "nameEdit");
        const ProviderAdapter *openai = ProviderRegistry::find(u"openai_compat");
        const ProviderAdapter *anthropic = ProviderRegistry::find(u"anthropic");
        const ProviderAdapter *gemini = ProviderRegistry::find(u"gemini");
        QCOMPARE(url->text(), openai->defaultBaseUrl());
        QCOMPARE(name->text(), QStringLiteral("openai-compat"));

        selectDialect(&dialog, QStringLiteral("anthropic"));
        QCOMPARE(url->text(), anthropic->defaultBaseUrl());
        QCOMPARE(name->text(), QStringLiteral("anthropic"));
        QCOMPARE(dialog.provider().dialect, QStringLiteral("anthropic"));

        // What the user typed stays when the dialect changes again.
        setText(&dialog, "baseUrlEdit", QStringLiteral("https://llm-gateway.internal/anthropic"));
        setText(&dialog, "nameEdit", QStringLiteral("claude-corp"));
        selectDialect(&dialog, QStringLiteral("gemini"));
        QCOMPARE(url->text(), QStringLiteral("https://llm-gateway.internal/anthropic"));
        QCOMPARE(name->text(), QStringLiteral("claude-corp"));

        // A URL that is just another dialect's default is not the user's own: it follows.
        setText(&dialog, "baseUrlEdit", anthropic->defaultBaseUrl());
        selectDialect(&dialog, QStringLiteral("gemini"));
        selectDialect(&dialog, QStringLiteral("openai_compat"));
        QCOMPARE(url->text(), openai->defaultBaseUrl());
        Q_UNUSED(gemini);
    }

    void theResponsesApiCheckboxIsOfferedForOpenAiCompatibleProvidersOnly()
    {
        test::TestStore t;
        ProviderDialog dialog(t.store, 0);
        auto *check = child<QCheckBox>(&dialog, "responsesApiCheck");
        QVERIFY(!check->isChecked()); // off by default: most OpenAI-compatible servers lack it
        QVERIFY(!check->isHidden());
        QVERIFY(!check->toolTip().isEmpty());
        check->setChecked(true);
        QVERIFY(dialog.provider().responsesApi);
        selectDialect(&dialog, QStringLiteral("anthropic"));
        QVERIFY(check->isHidden());
        QVERIFY(!dialog.provider().responsesApi); // a hidden tick never reaches another dialect's provider
        selectDialect(&dialog, QStringLiteral("openai_compat"));
        QVERIFY(!check->isHidden());
        QVERIFY(dialog.provider().responsesApi);
    }

    // A provider trusts the system's CAs, a CA bundle of its own (checked inline: an absolute path to
    // a readable file), or nothing at all: an explicit tick, warned about each time it shows.
    void tlsTrustIsABundleOrAnExplicitWarnedChoiceNotToVerify()
    {
        test::TestStore t;
        ProviderDialog dialog(t.store, 0);
        dialog.show();
        setText(&dialog, "nameEdit", QStringLiteral("corp-llm"));
        setText(&dialog, "baseUrlEdit", QStringLiteral("https://llm.corp.example/v1"));
        auto *bundle = child<QLineEdit>(&dialog, "caBundleEdit");
        auto *skip = child<QCheckBox>(&dialog, "skipVerifyCheck");
        auto *message = child<QLabel>(&dialog, "tlsError");
        QVERIFY(bundle->text().isEmpty());
        QVERIFY(!bundle->placeholderText().isEmpty()); // says that empty is the system's CAs
        QVERIFY(!skip->isChecked());
        QVERIFY(!skip->toolTip().isEmpty());
        QVERIFY(!message->isVisible());
        QVERIFY(saveButton(&dialog)->isEnabled());

        setText(&dialog, "caBundleEdit", QStringLiteral("certs/corp-ca.pem"));
        QVERIFY(message->isVisible());
        QVERIFY2(message->text().contains(QStringLiteral("absolute path")), qPrintable(message->text()));
        QVERIFY(!saveButton(&dialog)->isEnabled());
        setText(&dialog, "caBundleEdit", QStringLiteral("/nonexistent/corp-ca.pem"));
        QVERIFY2(message->text().contains(QStringLiteral("No readable file")), qPrintable(message->text()));
        QVERIFY(!saveButton(&dialog)->isEnabled());
        QCoreApplication::processEvents(); // the layout makes room for the message first
        QVERIFY(dialog.grab().save(test::artifactPath(QStringLiteral("providers/provider-dialog-ca-bundle-missing.png"))));

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("corp-ca.pem"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("-----BEGIN CERTIFICATE-----\n");
        file.close();
        setText(&dialog, "caBundleEdit", path);
        QVERIFY(!message->isVisible());
        QVERIFY(saveButton(&dialog)->isEnabled());
        QCOMPARE(dialog.provider().caBundle, path);
        QVERIFY(!dialog.provider().tlsSkipVerify);
        QVERIFY(dialog.save());
        const auto afterSave = t.reload(); // kept: `saved` points into it
        const ProviderConfig *saved = byName(*afterSave, QStringLiteral("corp-llm"));
        QVERIFY(saved);
        QCOMPARE(saved->caBundle, path);
        QVERIFY(!saved->tlsSkipVerify);

        // Skipping verification: the bundle field goes quiet and the warning stays in sight; it may be saved.
        ProviderDialog edit(t.store, saved->id);
        edit.show();
        QCOMPARE(child<QLineEdit>(&edit, "caBundleEdit")->text(), path);
        auto *editSkip = child<QCheckBox>(&edit, "skipVerifyCheck");
        auto *editMessage = child<QLabel>(&edit, "tlsError");
        editSkip->setChecked(true);
        QVERIFY(!child<QLineEdit>(&edit, "caBundleEdit")->isEnabled());
        QVERIFY(editMessage->isVisible());
        QVERIFY2(editMessage->text().contains(QStringLiteral("not verified")), qPrintable(editMessage->text()));
        QVERIFY(saveButton(&edit)->isEnabled());
        QCoreApplication::processEvents();
        QVERIFY(edit.grab().save(test::artifactPath(QStringLiteral("providers/provider-dialog-skip-verification.png"))));
        QVERIFY(edit.provider().tlsSkipVerify);
        QVERIFY(edit.provider().caBundle.isEmpty()); // a bundle and no verification never go together
        QVERIFY(edit.save());
        const auto afterSkip = t.reload();
        const ProviderConfig *skipping = byName(*afterSkip, QStringLiteral("corp-llm"));
        QVERIFY(skipping->tlsSkipVerify);
        QVERIFY(skipping->caBundle.isEmpty());

        ProviderDialog again(t.store, saved->id);
        again.show();
        QVERIFY(child<QCheckBox>(&again, "skipVerifyCheck")->isChecked());
        QVERIFY(child<QLabel>(&again, "tlsError")->isVisible()); // warned whenever it is looked at
        QVERIFY(!child<QLineEdit>(&again, "caBundleEdit")->isEnabled());
        child<QCheckBox>(&again, "skipVerifyCheck")->setChecked(false);
        QVERIFY(child<QLineEdit>(&again, "caBundleEdit")->isEnabled());
        QVERIFY(!child<QLabel>(&again, "tlsError")->isVisible());
        QVERIFY(!again.provider().tlsSkipVerify);
    }

    // HTTP/1.1 unless the provider asks: the box starts clear, and what it says is stored.
    void http2IsAnExplicitChoiceKeptWithTheProvider()
    {
        test::TestStore t;
        ProviderDialog dialog(t.store, 0);
        dialog.show();
        setText(&dialog, "nameEdit", QStringLiteral("multiplexed"));
        setText(&dialog, "baseUrlEdit", QStringLiteral("https://api.example.com/v1"));
        auto *http2 = child<QCheckBox>(&dialog, "http2Check");
        QVERIFY(!http2->isChecked());
        QVERIFY(http2->toolTip().contains(QStringLiteral("HTTP/1.1")));
        QVERIFY(!dialog.provider().http2);
        http2->setChecked(true);
        QVERIFY(dialog.provider().http2);
        QVERIFY(dialog.save());
        const auto afterSave = t.reload();
        const ProviderConfig *saved = byName(*afterSave, QStringLiteral("multiplexed"));
        QVERIFY(saved);
        QVERIFY(saved->http2);

        ProviderDialog edit(t.store, saved->id);
        edit.show();
        QVERIFY(child<QCheckBox>(&edit, "http2Check")->isChecked());
        child<QCheckBox>(&edit, "http2Check")->setChecked(false);
        QVERIFY(edit.save());
        const auto afterClear = t.reload();
        QVERIFY(!byName(*afterClear, QStringLiteral("multiplexed"))->http2);
    }

    void anErnieRawTokenIsToldItsHeartbeatCostsTokensAndTheKeyPairIsNot()
    {
        test::TestStore t;
        ProviderDialog dialog(t.store, 0);
        dialog.resize(760, 640);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        selectDialect(&dialog, QStringLiteral("ernie"));
        addKeyThroughDialog(dialog, QStringLiteral("24.raw-access-token-of-thirty-days-0001"), QStringLiteral("token"));
        auto *hint = child<QLabel>(&dialog, "keysHint");
        QVERIFY2(hint->text().contains(QStringLiteral("no free probe")) && hint->text().contains(QStringLiteral("once a minute")),
                 qPrintable(hint->text()));
        QCoreApplication::processEvents();
        QVERIFY(dialog.grab().save(test::artifactPath(QStringLiteral("providers/ernie-raw-token.png"))));

        child<QTableView>(&dialog, "keysView")->selectRow(0);
        child<QPushButton>(&dialog, "removeKeyButton")->click();
        addKeyThroughDialog(dialog, QStringLiteral("baidu-api-key-0001:baidu-secret-key-0001"), QStringLiteral("team"));
        addKeyThroughDialog(dialog, QStringLiteral("baidu-api-key-0002:baidu-secret-key-0002"), QStringLiteral("backup"));
        QVERIFY2(hint->text().contains(QStringLiteral("exchanges it for an access token")) && hint->text().contains(QStringLiteral("costs no tokens")),
                 qPrintable(hint->text()));
        QVERIFY(!hint->text().contains(QStringLiteral("no free probe")));
        QVERIFY(!test::visibleText(&dialog).contains(QStringLiteral("baidu-secret-key-0001")));
        QCoreApplication::processEvents();
        QVERIFY(dialog.grab().save(test::artifactPath(QStringLiteral("providers/ernie-key-pair.png"))));
    }

    void aKeyWhoseSecretCannotBeReadSaysSoInRed()
    {
        test::TestStore t;
        ProviderDialog dialog(t.store, 1);
        std::vector<ApiKeyConfig> keys = dialog.keyModel()->keys();
        keys[1].secret.clear();
        keys[1].unreadableReason = QStringLiteral("it is kept in the keyring, which cannot be reached (Could not connect: No such file or directory)");
        dialog.keyModel()->setKeys(keys);
        const QModelIndex status = dialog.keyModel()->index(1, KeyTableModel::Status);
        QVERIFY2(status.data().toString().startsWith(QStringLiteral("secret cannot be read")), qPrintable(status.data().toString()));
        QCOMPARE(dialog.keyModel()->index(1, KeyTableModel::Key).data().toString(), QStringLiteral("(unreadable)"));
        QCOMPARE(status.data(Qt::ForegroundRole).value<QColor>(), QColor(0xc6, 0x28, 0x28));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        child<QTableView>(&dialog, "keysView")->resizeColumnsToContents();
        QCoreApplication::processEvents();
        QVERIFY(dialog.grab().save(test::artifactPath(QStringLiteral("providers/key-unreadable.png"))));
    }

    void suggestedNameAvoidsTakenNames()
    {
        EngineConfig config = test::sampleProviders();
        config.providers[1].name = QStringLiteral("anthropic");
        test::TestStore t(config);
        ProviderDialog dialog(t.store, 0);
        selectDialect(&dialog, QStringLiteral("anthropic"));
        QCOMPARE(child<QLineEdit>(&dialog, "nameEdit")->text(), QStringLiteral("anthropic-2"));
        QVERIFY(child<QLabel>(&dialog, "nameError")->text().isEmpty());
        QCOMPARE(dialog.problems().size(), 1); // only its missing key (below)
        QVERIFY(dialog.problems().first().startsWith(QStringLiteral("No keys yet")));
    }

    void aDialectThatNeedsAKeyCannotBeSavedWithoutOne()
    {
        test::TestStore t;
        ProviderDialog dialog(t.store, 0);
        dialog.show();
        auto *hint = child<QLabel>(&dialog, "keysHint");
        auto *enabled = child<QCheckBox>(&dialog, "enabledCheck");
        QVERIFY(saveButton(&dialog)->isEnabled()); // an OpenAI-compatible server may need no key
        selectDialect(&dialog, QStringLiteral("anthropic"));
        QVERIFY(!saveButton(&dialog)->isEnabled());
        QVERIFY(hint->isVisible());
        QVERIFY2(hint->text().contains(QStringLiteral("No keys yet: Anthropic refuses every request without one. Add a key, "
                                                      "or untick Enabled")),
                 qPrintable(hint->text()));
        QVERIFY(!dialog.save());
        QCOMPARE(t.store.current()->providers.size(), std::size_t(2)); // nothing was saved

        // Disabled, it may wait for its keys; on this machine (a relay, the simulator) it may need none.
        enabled->setChecked(false);
        QVERIFY(saveButton(&dialog)->isEnabled());
        enabled->setChecked(true);
        QVERIFY(!saveButton(&dialog)->isEnabled());
        setText(&dialog, "baseUrlEdit", QStringLiteral("http://127.0.0.1:18462/v1"));
        QVERIFY(saveButton(&dialog)->isEnabled());
        setText(&dialog, "baseUrlEdit", QStringLiteral("https://api.anthropic.com/v1"));
        QVERIFY(!saveButton(&dialog)->isEnabled());

        addKeyThroughDialog(dialog, QStringLiteral("sk-ant-api03-dialog-key-0009ZZZZ"), QStringLiteral("ops"));
        QVERIFY(saveButton(&dialog)->isEnabled());
        QVERIFY(dialog.save());
        QCOMPARE(t.reload()->providers.size(), std::size_t(3));
    }

    void aStoredProviderOfAnUnknownDialectCannotBeSavedAsItIs()
    {
        // A database written before unknown dialects were refused (an import of "dialect": "openai").
        test::TestStore t;
        QSqlQuery q(t.repository.database().connection());
        QVERIFY(q.exec(QStringLiteral("UPDATE providers SET dialect = 'openai' WHERE id = 1")));
        QString error;
        t.store.adoptReloaded(t.repository.load(&error));
        QCOMPARE(t.store.current()->provider(1)->dialect, QStringLiteral("openai"));

        ProviderDialog dialog(t.store, 1);
        dialog.show();
        auto *dialectError = child<QLabel>(&dialog, "dialectError");
        QVERIFY(dialectError->isVisible());
        QVERIFY2(dialectError->text().contains(QStringLiteral("unknown dialect \"openai\"; did you mean \"openai_compat\"?")),
                 qPrintable(dialectError->text()));
        QVERIFY(!saveButton(&dialog)->isEnabled());
        QVERIFY(!dialog.save());

        selectDialect(&dialog, QStringLiteral("openai_compat"));
        QVERIFY(!dialectError->isVisible());
        QVERIFY(saveButton(&dialog)->isEnabled());
        QVERIFY(dialog.save());
        QCOMPARE(t.reload()->provider(1)->dialect, QStringLiteral("openai_compat"));
    }

    void invalidInputShowsInlineMessagesAndDisablesSave()
    {
        test::TestStore t;
        ProviderDialog dialog(t.store, 1);
        dialog.show();
        auto *nameError = child<QLabel>(&dialog, "nameError");
        auto *urlError = child<QLabel>(&dialog, "baseUrlError");
        QVERIFY(saveButton(&dialog)->isEnabled());
        QVERIFY(!nameError->isVisible());

        setText(&dialog, "nameEdit", QString());
        QVERIFY(nameError->isVisible());
        QVERIFY(nameError->text().contains(QStringLiteral("Give the provider a name")));
        QVERIFY(!saveButton(&dialog)->isEnabled());

        setText(&dialog, "nameEdit", QStringLiteral("anthropic-backup"));
        QVERIFY(nameError->text().contains(QStringLiteral("already named \"anthropic-backup\"")));
        QVERIFY(!saveButton(&dialog)->isEnabled());
        setText(&dialog, "nameEdit", QStringLiteral("openai-main"));
        QVERIFY(!nameError->isVisible());
        QVERIFY(saveButton(&dialog)->isEnabled());

        setText(&dialog, "baseUrlEdit", QStringLiteral("ftp://files.example.com"));
        QVERIFY(urlError->isVisible());
        QVERIFY(urlError->text().contains(QStringLiteral("not an http:// or https:// URL")));
        QVERIFY(!saveButton(&dialog)->isEnabled());
        QVERIFY(!child<QPushButton>(&dialog, "testButton")->isEnabled());
        setText(&dialog, "baseUrlEdit", QStringLiteral("https://api.openai.com/v1"));
        QVERIFY(!urlError->isVisible());

        child<QDoubleSpinBox>(&dialog, "connectSpin")->setValue(40);
        QVERIFY(child<QLabel>(&dialog, "timeoutsError")->text().contains(QStringLiteral("connect timeout")));
        QVERIFY(!saveButton(&dialog)->isEnabled());
        child<QDoubleSpinBox>(&dialog, "connectSpin")->setValue(5);

        setText(&dialog, "egressEdit", QStringLiteral("not a proxy"));
        QVERIFY(child<QLabel>(&dialog, "egressError")->text().contains(QStringLiteral("egress proxy")));
        QVERIFY(!saveButton(&dialog)->isEnabled());
        setText(&dialog, "egressEdit", QStringLiteral("socks5://egress-2.internal:1080"));
        QVERIFY(dialog.problems().isEmpty());
        QVERIFY(saveButton(&dialog)->isEnabled());

        // Save with problems does nothing: nothing reaches the store.
        setText(&dialog, "nameEdit", QString());
        QVERIFY(!dialog.save());
        QCOMPARE(t.reload()->provider(1)->name, QStringLiteral("openai-main"));
    }

    void newProviderSavesToTheDatabaseWithSecretsInTheSecretStore()
    {
        test::TestStore t;
        QSignalSpy changed(&t.store, &ConfigStore::configChanged);
        ProviderDialog dialog(t.store, 0);
        dialog.show();
        selectDialect(&dialog, QStringLiteral("gemini"));
        setText(&dialog, "nameEdit", QStringLiteral("gemini-eu"));
        child<QSpinBox>(&dialog, "rpmSpin")->setValue(600);
        child<QSpinBox>(&dialog, "tpmSpin")->setValue(250000);
        child<QSpinBox>(&dialog, "burstSpin")->setValue(12);
        child<QDoubleSpinBox>(&dialog, "primarySpin")->setValue(25);
        child<QDoubleSpinBox>(&dialog, "fallbackSpin")->setValue(15);
        child<QDoubleSpinBox>(&dialog, "connectSpin")->setValue(3);
        setText(&dialog, "accountEdit", QStringLiteral("acct-eu"));
        setText(&dialog, "regionEdit", QStringLiteral("europe-west4"));
        QVERIFY(child<QLabel>(&dialog, "keysHint")->text().contains(QStringLiteral("No keys yet")));

        const QString secret1 = QStringLiteral("AIzaSyD-gemini-key-number-one-9F2k");
        const QString secret2 = QStringLiteral("AIzaSyD-gemini-key-number-two-7Q1z");
        addKeyThroughDialog(dialog, secret1, QStringLiteral("primary"));
        addKeyThroughDialog(dialog, secret2, QStringLiteral("spare"));
        QCOMPARE(dialog.keyModel()->rowCount(), 2);
        QCOMPARE(dialog.keyModel()->index(0, KeyTableModel::Key).data().toString(), maskSecret(secret1));

        // After entry the keys are only masked, wherever a person could look.
        const QString shown = test::visibleText(&dialog);
        QVERIFY(!shown.contains(secret1));
        QVERIFY(!shown.contains(secret2));
        QVERIFY(shown.contains(maskSecret(secret1)));

        QVERIFY(saveButton(&dialog)->isEnabled());
        saveButton(&dialog)->click();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QCOMPARE(changed.count(), 1); // the engine hears of it through the store, live

        const EngineConfigPtr reloaded = t.reload();
        QVERIFY(reloaded);
        const ProviderConfig *p = byName(*reloaded, QStringLiteral("gemini-eu"));
        QVERIFY(p);
        QCOMPARE(p->id, 3);
        QCOMPARE(p->dialect, QStringLiteral("gemini"));
        QCOMPARE(p->baseUrl, ProviderRegistry::find(u"gemini")->defaultBaseUrl());
        QCOMPARE(p->requestsPerMinute, 600);
        QCOMPARE(p->tokensPerMinute, 250000);
        QCOMPARE(p->burst, 12);
        QCOMPARE(p->primaryTimeout, 25s);
        QCOMPARE(p->fallbackTimeout, 15s);
        QCOMPARE(p->connectTimeout, 3s);
        QCOMPARE(p->domain.account, QStringLiteral("acct-eu"));
        QCOMPARE(p->domain.region, QStringLiteral("europe-west4"));
        QCOMPARE(int(p->keys.size()), 2);
        QCOMPARE(p->keys[0].label, QStringLiteral("primary"));
        QCOMPARE(p->keys[0].secret, secret1);
        QCOMPARE(p->keys[1].secret, secret2);
        // The secret went through the SecretStore; the table kept the masked preview.
        const QString ref = t.repository.secretRefOf(p->keys[0].id);
        QVERIFY(!ref.isEmpty());
        QCOMPARE(t.secrets.load(ref).value_or(QString()), secret1);
        bool previewFound = false;
        for (const auto &preview : t.repository.keyPreviews())
            if (preview.keyId == p->keys[0].id) {
                QCOMPARE(preview.maskedPreview, maskSecret(secret1));
                previewFound = true;
            }
        QVERIFY(previewFound);
        // The other providers are untouched.
        QCOMPARE(reloaded->provider(1)->keys[0].secret, test::OpenAiKey1);
        QCOMPARE(reloaded->channels.size(), std::size_t(4));
    }

    void editingDisablesAKeyWithItsReasonAndKeepsTheSecret()
    {
        test::TestStore t;
        ProviderDialog dialog(t.store, 1);
        dialog.show();
        QCOMPARE(child<QLineEdit>(&dialog, "nameEdit")->text(), QStringLiteral("openai-main"));
        QCOMPARE(child<QSpinBox>(&dialog, "rpmSpin")->value(), 3000);
        auto *view = child<QTableView>(&dialog, "keysView");
        view->selectRow(1);
        child<QPushButton>(&dialog, "editKeyButton")->click();
        auto *keyDialog = dialog.findChild<KeyDialog *>();
        QVERIFY(keyDialog);
        QVERIFY(child<QLineEdit>(keyDialog, "secretEdit")->text().isEmpty()); // never pre-filled
        QVERIFY(!test::visibleText(keyDialog).contains(test::OpenAiKey2));
        child<QCheckBox>(keyDialog, "enabledCheck")->setChecked(false);
        QVERIFY(!saveButton(keyDialog)->isEnabled());
        QTest::keyClicks(child<QLineEdit>(keyDialog, "reasonEdit"), QStringLiteral("quota used up"));
        saveButton(keyDialog)->click();
        QTRY_VERIFY(!dialog.findChild<KeyDialog *>());
        QCOMPARE(dialog.keyModel()->index(1, KeyTableModel::Status).data().toString(), QStringLiteral("disabled: quota used up"));
        QVERIFY(child<QLabel>(&dialog, "keysHint")->text().contains(QStringLiteral("One enabled key")));
        QVERIFY(dialog.save());

        const EngineConfigPtr reloaded = t.reload();
        const ProviderConfig *p = reloaded->provider(1);
        QCOMPARE(int(p->keys.size()), 2);
        QVERIFY(p->keys[0].enabled);
        QVERIFY(!p->keys[1].enabled);
        QCOMPARE(p->keys[1].disabledReason, QStringLiteral("quota used up"));
        QCOMPARE(p->keys[1].secret, test::OpenAiKey2);
        QCOMPARE(p->domain.region, QStringLiteral("us-east")); // fields the user did not touch survive
        QCOMPARE(t.store.current()->provider(1)->keys[1].enabled, false);
    }

    void aKeyTheProviderRefusedShowsWhyAndReenableTakesItBack()
    {
        test::TestStore t;
        // What the engine stores when the provider refuses key 2 (EngineHost → ConfigStore).
        const qint64 at = QDateTime(QDate(2026, 3, 2), QTime(12, 4)).toMSecsSinceEpoch();
        QVERIFY(t.store.recordKeyRefused(2, maskSecret(test::OpenAiKey2), QStringLiteral("HTTP 401: Incorrect API key provided."), at));
        ProviderDialog dialog(t.store, 1);
        dialog.show();
        const QString status = dialog.keyModel()->index(1, KeyTableModel::Status).data().toString();
        QVERIFY2(status.startsWith(QStringLiteral("refused by the provider")) && status.contains(QStringLiteral("HTTP 401")), qPrintable(status));
        QCOMPARE(dialog.keyModel()->index(0, KeyTableModel::Status).data().toString(), QStringLiteral("enabled"));
        QVERIFY(child<QLabel>(&dialog, "keysHint")->text().contains(QStringLiteral("One enabled key")));
        QVERIFY(!test::visibleText(&dialog).contains(test::OpenAiKey2));

        auto *view = child<QTableView>(&dialog, "keysView");
        auto *reenable = child<QPushButton>(&dialog, "reenableKeyButton");
        view->selectRow(0);
        QVERIFY(!reenable->isEnabled()); // nothing to re-enable on a key the provider accepts
        view->selectRow(1);
        QVERIFY(reenable->isEnabled());
        view->resizeColumnsToContents();
        QVERIFY(dialog.grab().save(test::artifactPath(QStringLiteral("providers/key-refused.png"))));

        reenable->click();
        QCOMPARE(dialog.keyModel()->index(1, KeyTableModel::Status).data().toString(), QStringLiteral("enabled"));
        QVERIFY(!reenable->isEnabled());
        QVERIFY(child<QLabel>(&dialog, "keysHint")->text().contains(QStringLiteral("back in rotation")));
        QVERIFY(!t.store.current()->provider(1)->keys[1].refused()); // at once, without Save
        QVERIFY(!t.reload()->provider(1)->keys[1].refused());
        QVERIFY(dialog.grab().save(test::artifactPath(QStringLiteral("providers/key-reenabled.png"))));
    }

    void removingAKeyRemovesItOnSave()
    {
        test::TestStore t;
        ProviderDialog dialog(t.store, 1);
        dialog.show();
        child<QTableView>(&dialog, "keysView")->selectRow(0);
        child<QPushButton>(&dialog, "removeKeyButton")->click();
        QCOMPARE(dialog.keyModel()->rowCount(), 1);
        QVERIFY(dialog.save());
        const auto reloaded = t.reload(); // p points into it
        const ProviderConfig *p = reloaded->provider(1);
        QCOMPARE(int(p->keys.size()), 1);
        QCOMPARE(p->keys[0].secret, test::OpenAiKey2);
    }

    void testConnectionShowsTheNormalisedResult()
    {
        test::CannedHttpServer server(200, "{\"object\":\"list\",\"data\":[{\"id\":\"a\"},{\"id\":\"b\"}]}");
        test::TestStore t;
        ProviderDialog dialog(t.store, 1);
        dialog.show();
        setText(&dialog, "baseUrlEdit", server.baseUrl());
        auto *result = child<QLabel>(&dialog, "testResult");
        child<QPushButton>(&dialog, "testButton")->click();
        QVERIFY(result->text().startsWith(QStringLiteral("Testing ")));
        QVERIFY(!result->text().contains(test::OpenAiKey1));
        QTRY_VERIFY_WITH_TIMEOUT(result->text().contains(QStringLiteral("✓ 200 in ")), 15000);
        QVERIFY2(result->text().endsWith(QStringLiteral("2 models listed")), qPrintable(result->text()));
        QVERIFY(result->text().contains(maskSecret(test::OpenAiKey1))); // the first enabled key was used …
        QVERIFY(server.received().contains("Bearer " + test::OpenAiKey1.toUtf8())); // … and really sent
        QVERIFY(dialog.keyModel()->index(0, KeyTableModel::LastTest).data().toString().startsWith(QStringLiteral("✓ 200")));
    }

    void perKeyTestOfARejectedKeySaysAuthErrorWithoutTheKey()
    {
        // Providers echo the rejected key; the dialog must show only its mask.
        const QByteArray body = "{\"error\":{\"message\":\"Incorrect API key provided: " + test::OpenAiKey2.toUtf8()
                                + "\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}";
        test::CannedHttpServer server(401, body);
        test::TestStore t;
        ProviderDialog dialog(t.store, 1);
        dialog.show();
        setText(&dialog, "baseUrlEdit", server.baseUrl());
        child<QTableView>(&dialog, "keysView")->selectRow(1);
        child<QPushButton>(&dialog, "testKeyButton")->click();
        auto *result = child<QLabel>(&dialog, "testResult");
        QTRY_VERIFY_WITH_TIMEOUT(result->text().contains(QStringLiteral("✗ 401 auth error")), 15000);
        QVERIFY(server.received().contains("Bearer " + test::OpenAiKey2.toUtf8()));
        QVERIFY(dialog.keyModel()->index(1, KeyTableModel::LastTest).data().toString().startsWith(QStringLiteral("✗ 401 auth error")));
        QVERIFY(dialog.keyModel()->index(0, KeyTableModel::LastTest).data().toString().isEmpty());
        const QString shown = test::visibleText(&dialog);
        QVERIFY(!shown.contains(test::OpenAiKey2));
        QVERIFY(shown.contains(maskSecret(test::OpenAiKey2)));
    }
};

QTEST_MAIN(tst_ProviderDialog)
#include "tst_ProviderDialog.moc"
