// SocketBatch on real loopback TCP connections: several sockets' sends in one batch each arrive
// whole and in order (two pieces as one), each send's result comes back under its own tag, a
// socket that cannot take everything answers at once with what it took instead of holding the
// batch up, a connection the peer reset answers with an error; receives take what waits, the end
// of a stream, a reset, or answer at once that nothing waits; and SWITCHBOARD_IO_URING=0 turns
// the ring off for threads that start after it is set.
#include "net/SocketBatch.h"

#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <thread>
#include <vector>

using namespace sb;

namespace {

// A connected loopback TCP pair: `client` is the end the batch sends on, `server` the peer.
struct TcpPair {
    int client = -1;
    int server = -1;
    TcpPair(const TcpPair &) = delete;
    TcpPair &operator=(const TcpPair &) = delete;
    TcpPair()
    {
        const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (::bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0 && ::listen(listener, 1) == 0
            && ::getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length) == 0) {
            client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (::connect(client, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0)
                server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        }
        ::close(listener);
    }
    ~TcpPair()
    {
        if (client >= 0)
            ::close(client);
        if (server >= 0)
            ::close(server);
    }
    bool connected() const { return client >= 0 && server >= 0; }
    // Everything that waits at the server's end.
    QByteArray received() const
    {
        QByteArray all;
        char buffer[65536];
        for (ssize_t got; (got = ::recv(server, buffer, sizeof buffer, MSG_DONTWAIT)) > 0;)
            all.append(buffer, got);
        return all;
    }
};

iovec piece(const QByteArray &bytes)
{
    return iovec{const_cast<char *>(bytes.constData()), static_cast<std::size_t>(bytes.size())};
}

} // namespace

class tst_SocketBatch : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        if (!SocketBatch::forThisThread().available())
            QSKIP("io_uring is not available to this process (see tst_TurnEndWrites_without_io_uring)");
    }

    void eachSocketGetsItsBytesAndEachSendItsResult()
    {
        std::vector<TcpPair> pairs(4);
        for (const TcpPair &p : pairs)
            QVERIFY(p.connected());
        const QByteArray head = "POST / HTTP/1.1\r\n\r\n", body = "{\"model\":\"m\"}", reply = "reply";
        SocketBatch &batch = SocketBatch::forThisThread();
        const SocketBatch::Stats before = batch.stats();
        const iovec request[2] = {piece(head), piece(body)};
        const iovec answer[1] = {piece(reply)};
        // Tags out of order: results are matched by tag, not by position.
        QVERIFY(batch.add(pairs[0].client, request, 2, 30));
        QVERIFY(batch.add(pairs[1].client, answer, 1, 10));
        QVERIFY(batch.add(pairs[2].client, request, 2, 20));
        QVERIFY(batch.add(pairs[3].client, answer, 1, 0));
        const std::vector<SocketBatch::Result> results = batch.run();
        QCOMPARE(results.size(), std::size_t(4));
        const std::size_t tags[] = {30, 10, 20, 0};
        const long sizes[] = {head.size() + body.size(), reply.size(), head.size() + body.size(), reply.size()};
        for (std::size_t i = 0; i < 4; ++i) {
            QCOMPARE(results[i].tag, tags[i]);
            QCOMPARE(results[i].bytes, sizes[i]);
        }
        QCOMPARE(pairs[0].received(), head + body);
        QCOMPARE(pairs[1].received(), reply);
        QCOMPARE(pairs[2].received(), head + body);
        QCOMPARE(pairs[3].received(), reply);
        QCOMPARE(batch.stats().batches - before.batches, 1ull);
        QCOMPARE(batch.stats().sends - before.sends, 4ull);
        // The batch is empty again afterwards.
        QVERIFY(batch.run().empty());
    }

    void aFullSocketAnswersAtOnceWithWhatItTook()
    {
        TcpPair full, free;
        QVERIFY(full.connected() && free.connected());
        // The full one's peer reads nothing: a send far larger than both sockets' buffers can only
        // be taken in part, and the batch must not wait for the rest.
        int small = 4096;
        ::setsockopt(full.client, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
        ::setsockopt(full.server, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
        const QByteArray large(8 * 1024 * 1024, 'x'), reply = "reply";
        SocketBatch &batch = SocketBatch::forThisThread();
        const iovec big[1] = {piece(large)};
        const iovec answer[1] = {piece(reply)};
        QVERIFY(batch.add(full.client, big, 1, 1));
        QVERIFY(batch.add(free.client, answer, 1, 2));
        const std::vector<SocketBatch::Result> results = batch.run();
        QCOMPARE(results.size(), std::size_t(2));
        QVERIFY2(results[0].bytes == -EAGAIN || (results[0].bytes > 0 && results[0].bytes < large.size()),
                 qPrintable(QString::number(results[0].bytes)));
        QCOMPARE(results[1].bytes, long(reply.size()));
        QCOMPARE(free.received(), reply);
    }

    void aResetConnectionAnswersWithAnError()
    {
        TcpPair gone, fine;
        QVERIFY(gone.connected() && fine.connected());
        // The peer closes with a zero linger: a reset, which loopback delivers before close() returns.
        const linger abortive{1, 0};
        QCOMPARE(::setsockopt(gone.server, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive), 0);
        ::close(gone.server);
        gone.server = -1;
        const QByteArray reply = "reply";
        const iovec answer[1] = {piece(reply)};
        SocketBatch &batch = SocketBatch::forThisThread();
        QVERIFY(batch.add(gone.client, answer, 1, 1));
        QVERIFY(batch.add(fine.client, answer, 1, 2));
        const std::vector<SocketBatch::Result> results = batch.run();
        QCOMPARE(results.size(), std::size_t(2));
        QVERIFY2(results[0].bytes == -EPIPE || results[0].bytes == -ECONNRESET, qPrintable(QString::number(results[0].bytes)));
        QCOMPARE(results[1].bytes, long(reply.size()));
    }

    void receivesTakeWhatWaitsTheEndOrNothingAtOnce()
    {
        // Receives are made on the server's ends here: bytes waiting, a peer that sent its FIN,
        // a reset, one socket with nothing to read (answered at once, not waited for), and a send
        // in the same batch.
        TcpPair talking, finished, reset, silent, sending;
        QVERIFY(talking.connected() && finished.connected() && reset.connected() && silent.connected() && sending.connected());
        const QByteArray words = "a request";
        QCOMPARE(::send(talking.client, words.constData(), std::size_t(words.size()), 0), ssize_t(words.size()));
        ::shutdown(finished.client, SHUT_WR);
        const linger abortive{1, 0};
        QCOMPARE(::setsockopt(reset.client, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive), 0);
        ::close(reset.client);
        reset.client = -1;
        char buffers[4][64];
        SocketBatch &batch = SocketBatch::forThisThread();
        const SocketBatch::Stats before = batch.stats();
        QVERIFY(batch.addReceive(talking.server, buffers[0], sizeof buffers[0], 0));
        QVERIFY(batch.addReceive(finished.server, buffers[1], sizeof buffers[1], 1));
        QVERIFY(batch.addReceive(reset.server, buffers[2], sizeof buffers[2], 2));
        QVERIFY(batch.addReceive(silent.server, buffers[3], 4, 3));
        const QByteArray reply = "reply";
        const iovec answer[1] = {piece(reply)};
        QVERIFY(batch.add(sending.server, answer, 1, 4));
        const std::vector<SocketBatch::Result> results = batch.run();
        QCOMPARE(results.size(), std::size_t(5));
        for (std::size_t i = 0; i < results.size(); ++i)
            QCOMPARE(results[i].tag, i);
        QCOMPARE(results[0].bytes, long(words.size()));
        QCOMPARE(QByteArray(buffers[0], words.size()), words);
        QCOMPARE(results[1].bytes, 0L);
        QCOMPARE(results[2].bytes, long(-ECONNRESET));
        QCOMPARE(results[3].bytes, long(-EAGAIN));
        QCOMPARE(results[4].bytes, long(reply.size()));
        char got[16];
        QCOMPARE(::recv(sending.client, got, sizeof got, MSG_DONTWAIT), ssize_t(reply.size()));
        QCOMPARE(batch.stats().receives - before.receives, 4ull);
        QCOMPARE(batch.stats().sends - before.sends, 1ull);
    }

    void turnedOffByTheEnvironmentForThreadsStartedAfter()
    {
        qputenv("SWITCHBOARD_IO_URING", "0");
        bool available = true, added = true;
        std::thread([&] {
            SocketBatch &batch = SocketBatch::forThisThread();
            available = batch.available();
            const QByteArray reply = "reply";
            const iovec answer[1] = {piece(reply)};
            added = batch.add(0, answer, 1, 1);
        }).join();
        qunsetenv("SWITCHBOARD_IO_URING");
        QVERIFY(!available);
        QVERIFY(!added); // the caller sends it itself
        QVERIFY(SocketBatch::forThisThread().available()); // made before: unchanged
    }
};

QTEST_GUILESS_MAIN(tst_SocketBatch)
#include "tst_SocketBatch.moc"
