// Writes a worker's turn holds to its end (TurnEndWrites through TcpStream on the workers' loop):
// every event of a turn but the last has its write held until the turn's events are through, the
// last one's leaves at once, a write made outside a turn is not held, a stream that goes before the
// turn ends sends what it held as it goes and is not called, and a held write that finds its
// connection gone is heard as closed. The held writes to plain sockets leave in one batch
// (SocketBatch), or one by one where io_uring is off (the test runs both ways).
// Counted by what the peers can read at each step, not timed.
#include "LoopThread.h"
#include "net/SocketBatch.h"
#include "net/TcpStream.h"

#include <QSemaphore>
#include <QtTest>

#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <vector>

using namespace sb;

using test::LoopThread;

namespace {

constexpr int kWait = 5000;

// A TcpStream on the loop over one end of a socket pair; the test holds the other end (`peer`).
// What it hears is counted, and each readable event is handed to `onRequest`.
struct Connection final : TcpStream::Listener {
    std::unique_ptr<TcpStream> stream;
    int peer = -1;
    int closedHeard = 0;
    int writtenHeard = 0;
    std::function<void(Connection &)> onRequest;

    void streamReadable() override
    {
        stream->readAll();
        if (onRequest)
            onRequest(*this);
    }
    void streamWritten() override { ++writtenHeard; }
    void streamClosed() override
    {
        ++closedHeard;
        stream->abort(); // as the server's connection tears down
    }
    ~Connection()
    {
        if (peer >= 0)
            ::close(peer);
    }
};

// Whether bytes wait to be read at `descriptor`, without taking them.
bool replyWaits(int descriptor)
{
    char byte = 0;
    return ::recv(descriptor, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
}

// `count` connections made on the loop's thread (their watches belong to its dispatcher).
std::vector<std::unique_ptr<Connection>> connectionsOn(LoopThread &loop, int count)
{
    std::vector<std::unique_ptr<Connection>> made;
    loop.run([&] {
        for (int i = 0; i < count; ++i) {
            int ends[2] = {-1, -1};
            if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, ends) != 0)
                return;
            auto connection = std::make_unique<Connection>();
            connection->stream = std::make_unique<TcpStream>(ends[0], 64 * 1024);
            connection->stream->setListener(connection.get());
            connection->peer = ends[1];
            made.push_back(std::move(connection));
        }
    });
    return made;
}

// A worker's loop and `count` connections on it, dropped on that loop's thread however a test ends.
struct Rig {
    LoopThread loop;
    std::vector<std::unique_ptr<Connection>> connections;
    explicit Rig(int count) : connections(connectionsOn(loop, count)) {}
    ~Rig()
    {
        loop.run([this] { connections.clear(); });
    }
};

// Makes every connection readable while the loop is busy, so that one turn delivers them all.
void requestAllInOneTurn(LoopThread &loop, const std::vector<std::unique_ptr<Connection>> &connections)
{
    int sent = 0;
    loop.whileHeld([&] {
        for (const auto &c : connections)
            sent += ::send(c->peer, "q", 1, MSG_NOSIGNAL) == 1 ? 1 : 0;
    });
    QCOMPARE(sent, int(connections.size()));
}

// One turn delivering a request on every connection, each answered with "reply" as it comes.
// Noted at each event, in the order the turn delivered them: how many earlier replies their peers
// could already read, and whether the event's own reply could be read right after its write.
// `then` runs after the write, with the event's place in the turn.
struct AnsweredTurn {
    std::vector<Connection *> order;
    std::vector<int> earlierRepliesSeen;
    std::vector<bool> ownReplyAtOnce;
    std::function<void(Connection &, std::size_t place)> then;

    void run(LoopThread &loop, const std::vector<std::unique_ptr<Connection>> &connections)
    {
        QSemaphore answered;
        for (const auto &c : connections) {
            c->onRequest = [&](Connection &self) {
                int seen = 0;
                for (const Connection *earlier : order)
                    seen += replyWaits(earlier->peer) ? 1 : 0;
                earlierRepliesSeen.push_back(seen);
                order.push_back(&self);
                QVERIFY(self.stream->write(QByteArrayLiteral("reply")));
                ownReplyAtOnce.push_back(replyWaits(self.peer));
                if (then)
                    then(self, order.size() - 1);
                answered.release();
            };
        }
        requestAllInOneTurn(loop, connections);
        QVERIFY(answered.tryAcquire(int(connections.size()), kWait));
        loop.run([&] { // the turn is over; nothing more is answered
            for (const auto &c : connections)
                c->onRequest = nullptr;
        });
    }
};

} // namespace

class tst_TurnEndWrites : public QObject {
    Q_OBJECT
private slots:
    void aTurnsWritesLeaveAfterItsLastEvent()
    {
        Rig rig(3);
        QCOMPARE(rig.connections.size(), std::size_t(3));
        SocketBatch::Stats before, after;
        bool batched = false;
        rig.loop.run([&] {
            before = SocketBatch::forThisThread().stats();
            batched = SocketBatch::forThisThread().available();
        });
        // Off when asked; on otherwise, unless this machine refuses io_uring (then the replies go
        // one by one, as the run with it off shows).
        if (qgetenv("SWITCHBOARD_IO_URING") == "0")
            QVERIFY(!batched);
        else if (!batched)
            qWarning("io_uring is refused here: the held replies go one by one");
        AnsweredTurn turn;
        turn.run(rig.loop, rig.connections);
        rig.loop.run([&] { after = SocketBatch::forThisThread().stats(); });
        QCOMPARE(turn.order.size(), std::size_t(3)); // one turn answered all three
        // The two held replies went in one system call; the last event's was sent at once. (The
        // other batch of the turn read the three requests ahead, before its events: ReadAhead.)
        QCOMPARE(after.batches - before.batches, batched ? 2ull : 0ull);
        QCOMPARE(after.sends - before.sends, batched ? 2ull : 0ull);
        QCOMPARE(after.receives - before.receives, batched ? 3ull : 0ull);
        QCOMPARE(turn.earlierRepliesSeen, (std::vector<int>{0, 0, 0}));
        QCOMPARE(turn.ownReplyAtOnce, (std::vector<bool>{false, false, true}));
        for (const auto &c : rig.connections) {
            QVERIFY(replyWaits(c->peer));
            QCOMPARE(c->closedHeard, 0);
        }
        // A held reply that went out whole is heard as written; the last one was never held.
        QCOMPARE(turn.order[0]->writtenHeard, 1);
        QCOMPARE(turn.order[1]->writtenHeard, 1);
        QCOMPARE(turn.order[2]->writtenHeard, 0);
    }

    void aWriteOutsideATurnLeavesAtOnce()
    {
        Rig rig(1);
        QCOMPARE(rig.connections.size(), std::size_t(1));
        bool atOnce = false;
        rig.loop.run([&] {
            QVERIFY(rig.connections[0]->stream->write(QByteArrayLiteral("hello")));
            atOnce = replyWaits(rig.connections[0]->peer);
        });
        QVERIFY(atOnce);
    }

    void aStreamGoneBeforeTheTurnEndsSendsWhatItHeldAndIsNotCalled()
    {
        Rig rig(3);
        QCOMPARE(rig.connections.size(), std::size_t(3));
        AnsweredTurn turn;
        turn.then = [&](Connection &, std::size_t place) {
            if (place == 1)
                turn.order[0]->stream.reset(); // the first one goes while its reply is held
        };
        turn.run(rig.loop, rig.connections);
        const auto &order = turn.order;
        QCOMPARE(order.size(), std::size_t(3));
        QVERIFY(!turn.ownReplyAtOnce[0]);
        // Its reply left as it went (as it would have at once without the hold), then its end.
        char reply[16] = {};
        QCOMPARE(::recv(order[0]->peer, reply, sizeof reply, MSG_DONTWAIT), ssize_t(5));
        QCOMPARE(QByteArray(reply, 5), QByteArrayLiteral("reply"));
        QCOMPARE(::recv(order[0]->peer, reply, sizeof reply, MSG_DONTWAIT), ssize_t(0));
        QCOMPARE(order[0]->writtenHeard, 0); // not called at the turn's end
        QVERIFY(replyWaits(order[1]->peer));
        QVERIFY(replyWaits(order[2]->peer));
    }

    void aHeldWriteThatFindsItsPeerGoneIsHeardAsClosed()
    {
        Rig rig(2);
        QCOMPARE(rig.connections.size(), std::size_t(2));
        AnsweredTurn turn;
        turn.then = [&](Connection &self, std::size_t place) {
            if (place == 0) { // its client leaves while its reply is held
                ::close(self.peer);
                self.peer = -1;
            }
        };
        turn.run(rig.loop, rig.connections);
        const auto &order = turn.order;
        QCOMPARE(order.size(), std::size_t(2));
        QVERIFY(!turn.ownReplyAtOnce[0]);
        QCOMPARE(order[0]->closedHeard, 1);
        QCOMPARE(order[0]->writtenHeard, 0);
        QVERIFY(replyWaits(order[1]->peer));
        QCOMPARE(order[1]->closedHeard, 0);
    }
};

QTEST_GUILESS_MAIN(tst_TurnEndWrites)
#include "tst_TurnEndWrites.moc"
