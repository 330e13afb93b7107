#include "common/SecretMask.h"
#include "providers/KeyDialog.h"

#include <QtTest>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

using namespace sb;

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

const QString Secret = QStringLiteral("sk-proj-abcdefghijklmnop1234");

} // namespace

class tst_KeyDialog : public QObject {
    Q_OBJECT
private slots:
    void newKeyNeedsAWholeKeyBeforeSave()
    {
        KeyDialog dialog(ApiKeyConfig{}, true);
        auto *secret = child<QLineEdit>(&dialog, "secretEdit");
        auto *error = child<QLabel>(&dialog, "secretError");
        QCOMPARE(secret->echoMode(), QLineEdit::Password);
        QVERIFY(!saveButton(&dialog)->isEnabled());
        QVERIFY(error->text().isEmpty()); // nothing typed yet: no red text, just no Save

        QTest::keyClicks(secret, QStringLiteral("sk-with space-1234"));
        QVERIFY(error->text().contains(QStringLiteral("spaces")));
        QVERIFY(!saveButton(&dialog)->isEnabled());

        secret->clear();
        QTest::keyClicks(secret, QStringLiteral("sk-1"));
        QVERIFY(error->text().contains(QStringLiteral("too short")));
        QVERIFY(!saveButton(&dialog)->isEnabled());

        secret->clear();
        QTest::keyClicks(secret, QStringLiteral("  ") + Secret); // pasted with leading blanks
        QVERIFY(error->text().isEmpty());
        QVERIFY(saveButton(&dialog)->isEnabled());
        QTest::keyClicks(child<QLineEdit>(&dialog, "labelEdit"), QStringLiteral("team key"));
        const ApiKeyConfig key = dialog.key();
        QCOMPARE(key.secret, Secret);
        QCOMPARE(key.label, QStringLiteral("team key"));
        QVERIFY(key.enabled);
    }

    void existingKeyIsNeverShownWhole()
    {
        ApiKeyConfig existing{7, QStringLiteral("backup"), Secret, true, {}};
        KeyDialog dialog(existing, false);
        auto *secret = child<QLineEdit>(&dialog, "secretEdit");
        QVERIFY(secret->text().isEmpty());
        QVERIFY(secret->placeholderText().contains(maskSecret(Secret)));
        QVERIFY(!dialog.windowTitle().contains(Secret));
        for (const QLabel *label : dialog.findChildren<QLabel *>())
            QVERIFY2(!label->text().contains(Secret), qPrintable(label->objectName()));
        QVERIFY(saveButton(&dialog)->isEnabled()); // left empty: keeps the stored key
        QCOMPARE(dialog.key().secret, Secret);
        QCOMPARE(dialog.key().id, 7);

        QTest::keyClicks(secret, QStringLiteral("sk-proj-replacement-5678"));
        QCOMPARE(dialog.key().secret, QStringLiteral("sk-proj-replacement-5678"));
    }

    void disablingAKeyAsksWhy()
    {
        KeyDialog dialog(ApiKeyConfig{3, QStringLiteral("ops"), Secret, true, {}}, false);
        auto *enabled = child<QCheckBox>(&dialog, "enabledCheck");
        auto *reason = child<QLineEdit>(&dialog, "reasonEdit");
        auto *reasonError = child<QLabel>(&dialog, "reasonError");
        QVERIFY(!reason->isEnabled());
        enabled->setChecked(false);
        QVERIFY(reason->isEnabled());
        QVERIFY(reasonError->text().contains(QStringLiteral("Say why")));
        QVERIFY(!saveButton(&dialog)->isEnabled());
        QTest::keyClicks(reason, QStringLiteral("401 from provider at 12:04"));
        QVERIFY(reasonError->text().isEmpty());
        QVERIFY(saveButton(&dialog)->isEnabled());
        const ApiKeyConfig key = dialog.key();
        QVERIFY(!key.enabled);
        QCOMPARE(key.disabledReason, QStringLiteral("401 from provider at 12:04"));

        enabled->setChecked(true); // re-enabled: the old reason no longer applies
        QVERIFY(dialog.key().disabledReason.isEmpty());
    }

    void savingClearsTheTypedKeyFromTheField()
    {
        KeyDialog dialog(ApiKeyConfig{}, true);
        auto *secret = child<QLineEdit>(&dialog, "secretEdit");
        QTest::keyClicks(secret, Secret);
        ApiKeyConfig accepted;
        connect(&dialog, &QDialog::accepted, this, [&] { accepted = dialog.key(); });
        saveButton(&dialog)->click();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QCOMPARE(accepted.secret, Secret);
        QVERIFY(secret->text().isEmpty());
    }
};

QTEST_MAIN(tst_KeyDialog)
#include "tst_KeyDialog.moc"
