// HOST:PORT taken apart once, for the listen address and the address of an instance to attach to.

#include "common/HostPort.h"

#include <QtTest>

using namespace sb;

class tst_HostPort : public QObject {
    Q_OBJECT

private slots:
    void splitsAtThePortsColon()
    {
        hostport::Parts parts;
        QCOMPARE(hostport::split(QStringLiteral("10.0.0.5:8400"), &parts), hostport::Problem::None);
        QCOMPARE(parts.host, QStringLiteral("10.0.0.5"));
        QCOMPARE(parts.port, QStringLiteral("8400"));
        QVERIFY(parts.hasHost);
        QCOMPARE(hostport::split(QStringLiteral("[fd00::5]:9000"), &parts), hostport::Problem::None);
        QCOMPARE(parts.host, QStringLiteral("fd00::5"));
        QCOMPARE(parts.port, QStringLiteral("9000"));
        QCOMPARE(hostport::split(QStringLiteral("switchboard.internal:"), &parts), hostport::Problem::None);
        QCOMPARE(parts.port, QString());
    }

    void aTextWithoutAColonIsAllPort()
    {
        hostport::Parts parts;
        QCOMPARE(hostport::split(QStringLiteral("8400"), &parts), hostport::Problem::None);
        QVERIFY(!parts.hasHost);
        QCOMPARE(parts.port, QStringLiteral("8400"));
    }

    void ipv6NeedsItsBrackets()
    {
        hostport::Parts parts;
        QCOMPARE(hostport::split(QStringLiteral("::1:8400"), &parts), hostport::Problem::BareIpv6);
        QCOMPARE(hostport::split(QStringLiteral("[::1"), &parts), hostport::Problem::UnclosedBracket);
        QCOMPARE(hostport::split(QStringLiteral("[::1]8400"), &parts), hostport::Problem::UnclosedBracket);
    }

    void portsFromTheLowestAllowedTo65535()
    {
        QCOMPARE(hostport::port(QStringLiteral("0"), 0), std::optional<quint16>(0));
        QVERIFY(!hostport::port(QStringLiteral("0"), 1));
        QCOMPARE(hostport::port(QStringLiteral("65535"), 1), std::optional<quint16>(65535));
        QVERIFY(!hostport::port(QStringLiteral("65536"), 0));
        QVERIFY(!hostport::port(QStringLiteral("-1"), 0));
        QVERIFY(!hostport::port(QStringLiteral("84a0"), 0));
        QVERIFY(!hostport::port(QString(), 0));
    }
};

QTEST_APPLESS_MAIN(tst_HostPort)
#include "tst_HostPort.moc"
