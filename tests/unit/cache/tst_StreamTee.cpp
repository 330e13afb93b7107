// The cache-through tee saves only complete, successful answers, and only after the client's last
// write (a later turn of the event loop), never from inside the write path.
#include "stream/StreamTee.h"

#include <QtTest>

using namespace sb;

class tst_StreamTee : public QObject {
    Q_OBJECT
private:
    struct Sink {
        int calls = 0;
        StreamTee::Result last;
        StreamTee::Sink fn()
        {
            return [this](StreamTee::Result &&r) {
                ++calls;
                last = std::move(r);
            };
        }
    };

private slots:
    void completeStreamIsSavedAfterTheEventLoopTurns()
    {
        Sink sink;
        StreamTee tee(1 << 20, sink.fn());
        tee.append({"a", "b"});
        tee.append({"c"});
        tee.completeStream();
        QCOMPARE(sink.calls, 0); // not from inside the client's write path
        QTRY_COMPARE(sink.calls, 1);
        QCOMPARE(sink.last.events, (std::vector<QByteArray>{"a", "b", "c"}));
        QVERIFY(sink.last.whole.isEmpty());
    }

    void savedEvenWhenTheTeeIsGoneBeforeTheLoopTurns()
    {
        // ProxyCall deletes itself (and its tee) right after the stream ends.
        Sink sink;
        {
            StreamTee tee(1 << 20, sink.fn());
            tee.append({"a"});
            tee.completeStream();
        }
        QTRY_COMPARE(sink.calls, 1);
    }

    void aStreamThatNeverCompletesIsNotSaved()
    {
        Sink sink;
        {
            StreamTee tee(1 << 20, sink.fn());
            tee.append({"a", "b"}); // then the upstream was cut, or the client left
        }
        QCoreApplication::processEvents();
        QTest::qWait(20);
        QCOMPARE(sink.calls, 0);
    }

    void anAbandonedStreamIsNotSaved()
    {
        Sink sink;
        StreamTee tee(1 << 20, sink.fn());
        tee.append({"a"});
        tee.abandon();
        tee.completeStream();
        QTest::qWait(20);
        QCOMPARE(sink.calls, 0);
        QVERIFY(tee.isDone());
    }

    void anOversizedStreamIsNotSaved()
    {
        Sink sink;
        StreamTee tee(10, sink.fn());
        tee.append({"12345", "67890"});
        QVERIFY(!tee.overflowed());
        tee.append({"x"});
        QVERIFY(tee.overflowed());
        tee.completeStream();
        QTest::qWait(20);
        QCOMPARE(sink.calls, 0);
    }

    void aWholeAnswerIsSaved()
    {
        Sink sink;
        StreamTee tee(1 << 20, sink.fn());
        tee.completeWhole("{\"id\":1}");
        tee.completeWhole("{\"id\":2}"); // a second completion is ignored
        QTRY_COMPARE(sink.calls, 1);
        QCOMPARE(sink.last.whole, QByteArray("{\"id\":1}"));
        QTest::qWait(20);
        QCOMPARE(sink.calls, 1);
    }

    void anEmptyStreamIsNotSaved()
    {
        Sink sink;
        StreamTee tee(1 << 20, sink.fn());
        tee.completeStream();
        QTest::qWait(20);
        QCOMPARE(sink.calls, 0);
    }
};

QTEST_GUILESS_MAIN(tst_StreamTee)
#include "tst_StreamTee.moc"
