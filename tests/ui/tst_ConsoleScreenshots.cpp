#include "IncidentScenario.h"
#include "MainWindow.h"
#include "TestPaths.h"
#include "pages/ChannelsPage.h"
#include "pages/OverviewPage.h"

#include <QtTest>
#include <QDir>
#include <QImage>
#include <QStyle>
#include <QStyleFactory>

using namespace sb;

// Drives the whole console through the scripted incident (two routes × two channels; gpt-4o/A dips,
// its breaker opens, half-opens and closes, requests fail over to gpt-4o/B) and saves the pages as
// PNGs in SB_TEST_ARTIFACTS/console (light) and console-dark — the README's screenshots come from here.
class tst_ConsoleScreenshots : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    }

    void incidentSequenceLight() { run(QStringLiteral("console"), QApplication::style()->standardPalette()); }
    void incidentSequenceDark() { run(QStringLiteral("console-dark"), darkPalette()); }

private:
    static QPalette darkPalette()
    {
        QPalette p;
        p.setColor(QPalette::Window, QColor(0x20, 0x22, 0x26));
        p.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
        p.setColor(QPalette::Base, QColor(0x18, 0x1a, 0x1d));
        p.setColor(QPalette::AlternateBase, QColor(0x26, 0x29, 0x2e));
        p.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
        p.setColor(QPalette::Button, QColor(0x2a, 0x2d, 0x32));
        p.setColor(QPalette::ButtonText, QColor(0xe6, 0xe6, 0xe6));
        p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xb5));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
        p.setColor(QPalette::Mid, QColor(0x50, 0x54, 0x5a));
        p.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa4, 0xaa));
        p.setColor(QPalette::ToolTipBase, QColor(0x2a, 0x2d, 0x32));
        p.setColor(QPalette::ToolTipText, QColor(0xe6, 0xe6, 0xe6));
        return p;
    }

    void run(const QString &folder, const QPalette &palette)
    {
        QApplication::setPalette(palette);
        test::IncidentScenario scenario;
        MainWindow window;
        window.resize(1400, 860);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.channelsPage()->setConfig(test::incidentConfig());
        window.setProxyAddress(QStringLiteral("http://127.0.0.1:8400/v1"));
        const QString directory = QDir(QStringLiteral(SB_TEST_ARTIFACTS)).filePath(folder);
        const QString during = directory + QStringLiteral("/during-incident");
        for (int s = 0; s < test::IncidentScenario::kSeconds; ++s) {
            window.applySnapshot(scenario.at(s));
            for (const HealthEvent &event : scenario.eventsAt(s))
                window.addEvent(event);
            if (s == test::IncidentScenario::kOpen + 20) {
                // Mid-incident: gpt-4o/A's breaker is open and the status bar counts it.
                QVERIFY2(window.statusText().contains(QStringLiteral("1 open incident")), qPrintable(window.statusText()));
                QVERIFY(window.saveScreenshots(during));
            }
        }
        QVERIFY(window.statusText().contains(QStringLiteral("req/s")));
        QVERIFY(window.statusText().contains(QStringLiteral("http://127.0.0.1:8400/v1")));

        QVERIFY(window.saveScreenshots(directory));
        for (const QString &page : {QStringLiteral("overview"), QStringLiteral("channels")}) {
            const QImage image(QDir(directory).filePath(page + QStringLiteral(".png")));
            QVERIFY2(!image.isNull(), qPrintable(page));
            QSet<QRgb> colours;
            for (int y = 0; y < image.height(); y += 5)
                for (int x = 0; x < image.width(); x += 5)
                    colours.insert(image.pixel(x, y));
            QVERIFY2(colours.size() > 40, qPrintable(page + QStringLiteral(": ") + QString::number(colours.size())));
        }
        qInfo("screenshots in %s", qPrintable(directory));
        QApplication::setPalette(QApplication::style()->standardPalette());
    }
};

QTEST_MAIN(tst_ConsoleScreenshots)
#include "tst_ConsoleScreenshots.moc"
