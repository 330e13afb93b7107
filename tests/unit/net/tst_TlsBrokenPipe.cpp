// TlsSession over a connected socket pair, both sides in this process: when the peer has gone, a
// write, a read that meets its end and a close_notify each fail as an error the caller handles,
// and none of them raises SIGPIPE (whose default action would end the whole process). Counted,
// not survived: a handler counts the signals for the length of each test.
#include "net/TlsClientContexts.h"
#include "net/TlsServerContext.h"
#include "net/TlsSession.h"

#include "TestCertificate.h"

#include <QtTest>

#include <atomic>
#include <memory>

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace sb;
using namespace sb::test;

namespace {

std::atomic<int> g_brokenPipeSignals{0};
void countBrokenPipeSignal(int) { g_brokenPipeSignals.fetch_add(1); }

// SIGPIPE counted instead of acted on while it lives.
class BrokenPipeCounter {
public:
    BrokenPipeCounter()
    {
        struct sigaction counting {};
        counting.sa_handler = countBrokenPipeSignal;
        sigemptyset(&counting.sa_mask);
        ::sigaction(SIGPIPE, &counting, &m_previous);
        g_brokenPipeSignals = 0;
    }
    ~BrokenPipeCounter() { ::sigaction(SIGPIPE, &m_previous, nullptr); }
    int count() const { return g_brokenPipeSignals.load(); }

private:
    struct sigaction m_previous {};
};

// A TLS client and server, handshaken, on the two ends of a stream socket pair.
struct Pair {
    int serverSide = -1;
    int clientSide = -1;
    std::shared_ptr<const TlsServerContext> serverContext;
    TlsClientContexts clientContexts;
    std::unique_ptr<TlsSession> server;
    std::unique_ptr<TlsSession> client;

    ~Pair()
    {
        server.reset();
        client.reset();
        for (int fd : {serverSide, clientSide})
            if (fd >= 0)
                ::close(fd);
    }

    bool open(const TestCertificate &certificate, QString *why)
    {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
            return false;
        serverSide = fds[0];
        clientSide = fds[1];
        for (int fd : fds)
            ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
        serverContext = TlsServerContext::load(certificate.certificateFile(), certificate.keyFile(), why);
        ssl_ctx_st *clientContext = clientContexts.contextFor(certificate.certificateFile().toUtf8(), true, why);
        if (!serverContext || !clientContext)
            return false;
        server = std::make_unique<TlsSession>(serverContext->context(), serverSide);
        client = std::make_unique<TlsSession>(clientContext, clientSide, TlsPeer{"127.0.0.1", true}, nullptr);
        for (int turn = 0; turn < 100 && !(server->handshakeDone() && client->handshakeDone()); ++turn) {
            for (TlsSession *side : {client.get(), server.get()}) {
                if (!side->handshakeDone() && side->handshake() == TlsSession::Step::Failed) {
                    *why = side->error();
                    return false;
                }
            }
        }
        return server->handshakeDone() && client->handshakeDone();
    }

    // Bytes from one side read by the other, as far as the socket has them.
    static QByteArray readAll(TlsSession &from)
    {
        QByteArray got;
        char buffer[4096];
        std::size_t n = 0;
        while (from.read(buffer, sizeof buffer, &n) == TlsSession::Step::Done)
            got.append(buffer, qsizetype(n));
        return got;
    }
};

} // namespace

class tst_TlsBrokenPipe : public QObject {
    Q_OBJECT

    TestCertificate m_certificate;

private slots:
    void initTestCase()
    {
        QString why;
        QVERIFY2(m_certificate.make(&why), qPrintable(why));
    }

    void bytesCrossBothWays()
    {
        Pair pair;
        QString why;
        QVERIFY2(pair.open(m_certificate, &why), qPrintable(why));
        std::size_t written = 0;
        QCOMPARE(pair.client->write("ping", 4, &written), TlsSession::Step::Done);
        QCOMPARE(Pair::readAll(*pair.server), QByteArray("ping"));
        QCOMPARE(pair.server->write("pong", 4, &written), TlsSession::Step::Done);
        QCOMPARE(Pair::readAll(*pair.client), QByteArray("pong"));
    }

    void aConnectionWhosePeerVanishedFailsWithoutASignal_data()
    {
        QTest::addColumn<bool>("serverSurvives");
        QTest::addColumn<bool>("writeFirst");
        // Writing first meets the broken pipe itself; reading first meets the peer's FIN, which
        // OpenSSL answers with an alert of its own, written to the same broken pipe.
        QTest::newRow("the client vanished, the server writes first") << true << true;
        QTest::newRow("the client vanished, the server reads first") << true << false;
        QTest::newRow("the server vanished, the client writes first") << false << true;
        QTest::newRow("the server vanished, the client reads first") << false << false;
    }
    void aConnectionWhosePeerVanishedFailsWithoutASignal()
    {
        QFETCH(bool, serverSurvives);
        QFETCH(bool, writeFirst);
        Pair pair;
        QString why;
        QVERIFY2(pair.open(m_certificate, &why), qPrintable(why));
        TlsSession &survivor = serverSurvives ? *pair.server : *pair.client;
        std::unique_ptr<TlsSession> &gone = serverSurvives ? pair.client : pair.server;
        std::size_t written = 0;
        QCOMPARE(gone->write("last words", 10, &written), TlsSession::Step::Done);
        QCOMPARE(Pair::readAll(survivor), QByteArray("last words"));

        const BrokenPipeCounter counter;
        // Gone without a close_notify, as a killed process or an aborted connection goes.
        gone.reset();
        ::close(std::exchange(serverSurvives ? pair.clientSide : pair.serverSide, -1));

        const QByteArray more(64 * 1024, 'x');
        char buffer[64];
        std::size_t got = 0;
        if (writeFirst) {
            QCOMPARE(survivor.write(more.constData(), std::size_t(more.size()), &written), TlsSession::Step::Failed);
            QVERIFY2(survivor.error().contains(QLatin1String("Broken pipe")), qPrintable(survivor.error()));
        }
        const TlsSession::Step read = survivor.read(buffer, sizeof buffer, &got);
        QVERIFY(read == TlsSession::Step::Closed || read == TlsSession::Step::Failed);
        if (!writeFirst) {
            const TlsSession::Step write = survivor.write(more.constData(), std::size_t(more.size()), &written);
            QVERIFY(write == TlsSession::Step::Closed || write == TlsSession::Step::Failed);
        }
        survivor.closeNotify();
        QCOMPARE(counter.count(), 0);
    }
};

QTEST_GUILESS_MAIN(tst_TlsBrokenPipe)
#include "tst_TlsBrokenPipe.moc"
