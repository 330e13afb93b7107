// `switchboard --headless --config FILE` with a configuration that cannot work: the process exits
// non-zero with the sentence that says what to fix, before it opens a port. The real executable,
// run the way a service manager runs it.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run {
    int exitCode = -1;
    bool exited = false;
    QString output; // stdout and stderr: the log of the headless service
};

Run runHeadless(const QByteArray &config)
{
    QTemporaryDir dir;
    Run run;
    if (!dir.isValid())
        return run;
    QFile file(dir.filePath(QStringLiteral("bad.json")));
    if (!file.open(QIODevice::WriteOnly) || file.write(config) != config.size())
        return run;
    file.close();

    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), dir.path()); // its log file and data directory, not the user's
    env.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    process.setProcessEnvironment(env);
    process.setProcessChannelMode(QProcess::MergedChannels);
    // Port 0: were the configuration accepted after all, the test would not fight anyone for 8400.
    process.start(QStringLiteral(SB_SWITCHBOARD_BINARY),
                  {QStringLiteral("--headless"), QStringLiteral("--config"), file.fileName(), QStringLiteral("--db"),
                   dir.filePath(QStringLiteral("switchboard.db")), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
    // A refused configuration ends the process at once; one that was accepted would serve until
    // killed, and that is the failure the comparisons below then report.
    run.exited = process.waitForFinished(60000);
    if (!run.exited) {
        process.kill();
        process.waitForFinished();
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.output = QString::fromUtf8(process.readAll());
    return run;
}

QByteArray withProvider(const QByteArray &provider)
{
    return "{\"providers\": [" + provider + "],"
           " \"channels\": [{\"name\": \"c/A\", \"provider\": \"p\", \"upstream_model\": \"m\"}],"
           " \"routes\": [{\"model\": \"m\", \"channels\": [\"c/A\"]}]}";
}

} // namespace

class tst_HeadlessRefusals : public QObject {
    Q_OBJECT
private slots:
    void aConfigurationThatCannotWorkEndsTheProcessWithTheSentence_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QString>("sentence");
        QTest::newRow("unknown dialect")
            << withProvider("{\"name\": \"p\", \"dialect\": \"openai\", \"base_url\": \"https://api.openai.com/v1\"}")
            << "Provider \"p\": unknown dialect \"openai\"; did you mean \"openai_compat\"? The known dialects are openai_compat, "
               "anthropic, gemini, dashscope and ernie.";
        QTest::newRow("no key where one is needed")
            << withProvider("{\"name\": \"p\", \"dialect\": \"anthropic\", \"base_url\": \"https://api.anthropic.com\"}")
            << "Provider \"p\" (anthropic) has no API key, and Anthropic refuses every request without one";
        QTest::newRow("a key without its secret")
            << withProvider("{\"name\": \"p\", \"dialect\": \"gemini\", \"base_url\": \"https://generativelanguage.googleapis.com\","
                            " \"keys\": [{\"label\": \"team\", \"preview\": \"AIza…x1y2\"}]}")
            << "Provider \"p\" (gemini): none of its 1 key(s) is enabled with a secret";
        QTest::newRow("the key under another name")
            << withProvider("{\"name\": \"p\", \"dialect\": \"anthropic\", \"base_url\": \"https://api.anthropic.com\","
                            " \"api_key\": \"sk-ant-api03-NOT-TO-BE-REPEATED-1234\"}")
            << "providers[0]: \"api_key\" is not a field of the format";
        QTest::newRow("a route to no channel") << QByteArray("{\"routes\": [{\"model\": \"m\", \"channels\": [\"ghost\"]}]}")
                                               << "Route \"m\" names channel \"ghost\", which is not in the file.";
        QTest::newRow("a port out of range") << QByteArray("{\"settings\": {\"proxy\": {\"listen_port\": 99999}}}")
                                             << "The listen port must be between 0 and 65535.";
    }

    void aConfigurationThatCannotWorkEndsTheProcessWithTheSentence()
    {
        QFETCH(QByteArray, config);
        QFETCH(QString, sentence);
        const Run run = runHeadless(config);
        QVERIFY2(run.exited, qPrintable(run.output));
        QVERIFY2(run.exitCode != 0, qPrintable(run.output));
        QVERIFY2(run.output.contains(sentence), qPrintable(run.output));
        QVERIFY2(!run.output.contains(QStringLiteral("proxy listening")), qPrintable(run.output));
        QVERIFY2(!run.output.contains(QStringLiteral("NOT-TO-BE-REPEATED")), "a key reached the log");
    }
};

QTEST_GUILESS_MAIN(tst_HeadlessRefusals)
#include "tst_HeadlessRefusals.moc"
