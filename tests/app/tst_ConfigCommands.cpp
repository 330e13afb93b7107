// `switchboard --export FILE` and `switchboard --import FILE`, the real executable as a script runs
// it: what it prints, its exit code, and what is in the database afterwards (read back with
// another --export), on a real SQLite file.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

class Cli {
public:
    explicit Cli(const QTemporaryDir &dir) : m_dir(dir) {}

    Run run(QStringList arguments, const QByteArray &input = QByteArray()) const
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME"), m_dir.path());
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_dir.filePath(QStringLiteral("data")));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS")); // no keyring: the keys stay in the test's database
        process.setProcessEnvironment(env);
        arguments << QStringLiteral("--db") << m_dir.filePath(QStringLiteral("switchboard.db"));
        process.start(QStringLiteral(SB_SWITCHBOARD_BINARY), arguments);
        if (!input.isEmpty()) {
            process.waitForStarted();
            process.write(input);
        }
        process.closeWriteChannel();
        Run run;
        if (!process.waitForFinished(60000)) {
            process.kill();
            process.waitForFinished();
            return run;
        }
        run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        run.out = QString::fromUtf8(process.readAllStandardOutput());
        run.err = QString::fromUtf8(process.readAllStandardError());
        return run;
    }

    QString path(const QString &name) const { return m_dir.filePath(name); }

private:
    const QTemporaryDir &m_dir;
};

QJsonObject readJson(const QString &path)
{
    QFile file(path);
    file.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(file.readAll()).object();
}

void writeJson(const QString &path, const QJsonObject &json)
{
    QFile file(path);
    file.open(QIODevice::WriteOnly);
    file.write(QJsonDocument(json).toJson());
}

QStringList routeModels(const QJsonObject &config)
{
    QStringList out;
    for (const QJsonValue &r : config.value(QStringLiteral("routes")).toArray())
        out << r.toObject().value(QStringLiteral("model")).toString();
    return out;
}

} // namespace

class tst_ConfigCommands : public QObject {
    Q_OBJECT
private slots:
    void exportEditImportAndTheDatabaseHoldsTheEdit()
    {
        QTemporaryDir dir;
        Cli cli(dir);
        // A new database exports the demo, as the console would open it.
        Run run = cli.run({QStringLiteral("--headless"), QStringLiteral("--export"), cli.path(QStringLiteral("demo.json"))});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QStringLiteral("Exported the configuration")), qPrintable(run.out));
        QJsonObject config = readJson(cli.path(QStringLiteral("demo.json")));
        QCOMPARE(routeModels(config), (QStringList{QStringLiteral("demo"), QStringLiteral("gpt-4o"), QStringLiteral("gpt-4o-mini")}));

        // Edit it as a script would: one route removed, one added, a provider's timeout changed.
        QJsonArray routes = config.value(QStringLiteral("routes")).toArray();
        routes.removeAt(2); // gpt-4o-mini
        routes.append(QJsonObject{{QStringLiteral("model"), QStringLiteral("fast")},
                                  {QStringLiteral("channels"), QJsonArray{QStringLiteral("demo/B")}}});
        config.insert(QStringLiteral("routes"), routes);
        QJsonArray providers = config.value(QStringLiteral("providers")).toArray();
        QJsonObject primary = providers[0].toObject();
        primary.insert(QStringLiteral("primary_timeout_ms"), 12000);
        providers[0] = primary;
        config.insert(QStringLiteral("providers"), providers);
        writeJson(cli.path(QStringLiteral("edited.json")), config);

        run = cli.run({QStringLiteral("--headless"), QStringLiteral("--import"), cli.path(QStringLiteral("edited.json"))});
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
        QVERIFY2(run.out.contains(QStringLiteral("+ route fast")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QStringLiteral("- route gpt-4o-mini")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QStringLiteral("~ provider demo-primary (primary_timeout_ms)")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QStringLiteral("Saved.")), qPrintable(run.out));

        run = cli.run({QStringLiteral("--headless"), QStringLiteral("--export"), cli.path(QStringLiteral("after.json"))});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject after = readJson(cli.path(QStringLiteral("after.json")));
        QCOMPARE(routeModels(after), (QStringList{QStringLiteral("demo"), QStringLiteral("gpt-4o"), QStringLiteral("fast")}));
        QCOMPARE(after.value(QStringLiteral("providers")).toArray()[0].toObject().value(QStringLiteral("primary_timeout_ms")).toInt(),
                 12000);

        // The same file again changes nothing, and says so.
        run = cli.run({QStringLiteral("--headless"), QStringLiteral("--import"), cli.path(QStringLiteral("edited.json"))});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QStringLiteral("nothing to change")), qPrintable(run.out));
    }

    void aFileThatCannotWorkChangesNothingAndExitsOne()
    {
        QTemporaryDir dir;
        Cli cli(dir);
        QVERIFY(cli.run({QStringLiteral("--headless"), QStringLiteral("--export"), cli.path(QStringLiteral("before.json"))}).exitCode == 0);
        writeJson(cli.path(QStringLiteral("bad.json")),
                  QJsonObject{{QStringLiteral("routes"), QJsonArray{QJsonObject{{QStringLiteral("model"), QStringLiteral("m")},
                                                                                {QStringLiteral("channels"), QJsonArray{QStringLiteral("ghost")}}}}}});
        const Run run = cli.run({QStringLiteral("--headless"), QStringLiteral("--import"), cli.path(QStringLiteral("bad.json"))});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("Route \"m\" names channel \"ghost\"")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("nothing was imported")), qPrintable(run.err));
        QVERIFY(cli.run({QStringLiteral("--headless"), QStringLiteral("--export"), cli.path(QStringLiteral("after.json"))}).exitCode == 0);
        QCOMPARE(readJson(cli.path(QStringLiteral("after.json"))), readJson(cli.path(QStringLiteral("before.json"))));
    }

    void keysGoInOnlyWithWithKeysAndThenTheFileIsTheOwnersOnly()
    {
        QTemporaryDir dir;
        Cli cli(dir);
        const QJsonObject config{
            {QStringLiteral("providers"),
             QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("p")},
                                    {QStringLiteral("dialect"), QStringLiteral("anthropic")},
                                    {QStringLiteral("base_url"), QStringLiteral("https://api.anthropic.com")},
                                    {QStringLiteral("keys"), QJsonArray{QStringLiteral("sk-ant-api03-CLI-SECRET-778899")}}}}},
            {QStringLiteral("channels"), QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("c/A")},
                                                                {QStringLiteral("provider"), QStringLiteral("p")},
                                                                {QStringLiteral("upstream_model"), QStringLiteral("claude")}}}},
            {QStringLiteral("routes"), QJsonArray{QJsonObject{{QStringLiteral("model"), QStringLiteral("claude")},
                                                              {QStringLiteral("channels"), QJsonArray{QStringLiteral("c/A")}}}}}};
        writeJson(cli.path(QStringLiteral("keys.json")), config);
        Run run = cli.run({QStringLiteral("--headless"), QStringLiteral("--import"), cli.path(QStringLiteral("keys.json"))});
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
        QVERIFY2(run.out.contains(QStringLiteral("1 with the secret from the file")), qPrintable(run.out));
        QVERIFY(!run.out.contains(QStringLiteral("CLI-SECRET")) && !run.err.contains(QStringLiteral("CLI-SECRET")));

        run = cli.run({QStringLiteral("--headless"), QStringLiteral("--export"), cli.path(QStringLiteral("plain.json"))});
        QVERIFY(run.exitCode == 0);
        QFile plain(cli.path(QStringLiteral("plain.json")));
        QVERIFY(plain.open(QIODevice::ReadOnly));
        QVERIFY(!plain.readAll().contains("CLI-SECRET"));

        run = cli.run({QStringLiteral("--headless"), QStringLiteral("--export"), cli.path(QStringLiteral("secret.json")),
                       QStringLiteral("--with-keys")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QFile secret(cli.path(QStringLiteral("secret.json")));
        QVERIFY(secret.open(QIODevice::ReadOnly));
        QVERIFY(secret.readAll().contains("sk-ant-api03-CLI-SECRET-778899"));
        QCOMPARE(secret.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther), QFileDevice::Permissions());
    }

    // What the service's README section does: the file on standard input, never on disk where the
    // service's sandbox could not read it, nor on the command line.
    void importReadsStandardInput()
    {
        QTemporaryDir dir;
        Cli cli(dir);
        const QByteArray config = "{\"routes\": [], \"channels\": [], \"providers\": [], \"settings\": {\"health\": {\"window_s\": 120}}}";
        const Run run = cli.run({QStringLiteral("--headless"), QStringLiteral("--import"), QStringLiteral("/dev/stdin")}, config);
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
        QVERIFY2(run.out.contains(QStringLiteral("Saved.")), qPrintable(run.out));
        QVERIFY(cli.run({QStringLiteral("--headless"), QStringLiteral("--export"), cli.path(QStringLiteral("after.json"))}).exitCode == 0);
        const QJsonObject after = readJson(cli.path(QStringLiteral("after.json")));
        QCOMPARE(after.value(QStringLiteral("settings")).toObject().value(QStringLiteral("health")).toObject().value(QStringLiteral("window_s")).toInt(),
                 120);
        QVERIFY(routeModels(after).isEmpty());
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("both") << QStringList{QStringLiteral("--export"), QStringLiteral("a.json"), QStringLiteral("--import"),
                                             QStringLiteral("b.json")};
        QTest::newRow("with --config") << QStringList{QStringLiteral("--import"), QStringLiteral("b.json"), QStringLiteral("--config"),
                                                      QStringLiteral("c.json")};
        QTest::newRow("--with-keys alone") << QStringList{QStringLiteral("--with-keys")};
    }

    void usageErrors()
    {
        QFETCH(QStringList, arguments);
        QTemporaryDir dir;
        const Run run = Cli(dir).run(arguments);
        QCOMPARE(run.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(tst_ConfigCommands)
#include "tst_ConfigCommands.moc"
