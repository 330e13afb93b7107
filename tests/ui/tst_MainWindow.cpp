#include "MainWindow.h"
#include "TestPaths.h"

#include <QtTest>
#include <QImage>
#include <QListWidget>
#include <QStackedWidget>

class tst_MainWindow : public QObject {
    Q_OBJECT
private slots:
    void opensWithEveryPage()
    {
        MainWindow window;
        QCOMPARE(window.pageNames(),
                 (QStringList{"Overview", "Channels", "Incidents", "Requests", "Providers", "Drills", "Settings"}));
        auto *stack = window.findChild<QStackedWidget *>();
        QVERIFY(stack);
        window.showPage(4);
        QCOMPARE(stack->currentIndex(), 4);
    }

    void grabGivesANonBlankImage()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QImage image = window.grab().toImage();
        QCOMPARE(image.size(), QSize(1280, 800));
        // A blank window is one colour; a real one has text, tiles and chart axes.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
        QVERIFY(image.save(sb::test::artifactPath(QStringLiteral("main-window.png"))));
    }
};

QTEST_MAIN(tst_MainWindow)
#include "tst_MainWindow.moc"
