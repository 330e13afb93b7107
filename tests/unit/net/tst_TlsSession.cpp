// A client connection resumes from a ticket object of its own: what OpenSSL marks on the ticket a
// connection uses stays off the one the engine keeps for the next connections. Records written for
// a batch are kept until sent, sent by a SocketBatch they read as the plaintext at the other end, and
// what part of them a send left goes before any later record.
#include "TestCertificate.h"
#include "net/SocketBatch.h"
#include "net/TlsServerContext.h"
#include "net/TlsSession.h"

#include <QtTest>

#include <openssl/ssl.h>

#include <sys/socket.h>
#include <unistd.h>

#include <memory>

using namespace sb;

namespace {

// A client and a server TlsSession over a socket pair, handshaken, on a throwaway certificate.
struct TlsPair {
    test::TestCertificate certificate;
    std::shared_ptr<const TlsServerContext> serverContext;
    SSL_CTX *clientContext = nullptr;
    int ends[2] = {-1, -1};
    std::unique_ptr<TlsSession> client, server;

    bool start(QString *why)
    {
        if (!certificate.make(why))
            return false;
        serverContext = TlsServerContext::load(certificate.certificateFile(), certificate.keyFile(), why);
        clientContext = SSL_CTX_new(TLS_client_method());
        if (!serverContext || !clientContext || ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, ends) != 0)
            return false;
        // As the engine's client contexts: a record at a time.
        SSL_CTX_set_mode(clientContext, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
        client = std::make_unique<TlsSession>(clientContext, ends[0], TlsPeer{QByteArrayLiteral("127.0.0.1"), false}, nullptr);
        server = std::make_unique<TlsSession>(serverContext->context(), ends[1]);
        for (int round = 0; round < 20 && !(client->handshakeDone() && server->handshakeDone()); ++round) {
            if (client->handshake() == TlsSession::Step::Failed || server->handshake() == TlsSession::Step::Failed) {
                *why = client->error() + server->error();
                return false;
            }
        }
        return client->handshakeDone() && server->handshakeDone();
    }
    // All the plaintext the server can read now.
    QByteArray serverReads()
    {
        QByteArray all;
        char buffer[4096];
        for (;;) {
            std::size_t got = 0;
            if (server->read(buffer, sizeof buffer, &got) != TlsSession::Step::Done)
                return all;
            all.append(buffer, qsizetype(got));
        }
    }
    ~TlsPair()
    {
        client.reset();
        server.reset();
        SSL_CTX_free(clientContext);
        for (const int end : ends)
            if (end >= 0)
                ::close(end);
    }
};

} // namespace

class tst_TlsSession : public QObject {
    Q_OBJECT

private slots:
    void eachConnectionResumesFromACopyOfItsOwn()
    {
        SSL_CTX *context = SSL_CTX_new(TLS_client_method());
        QVERIFY(context);
        SSL_SESSION *kept = SSL_SESSION_new(); // what a server issued earlier, as the engine keeps it
        static const unsigned char id[] = "an earlier ticket";
        QCOMPARE(SSL_SESSION_set1_id(kept, id, sizeof id - 1), 1);
        QCOMPARE(SSL_SESSION_set_protocol_version(kept, TLS1_3_VERSION), 1);
        QCOMPARE(SSL_SESSION_is_resumable(kept), 1);
        int first[2];
        int second[2];
        QCOMPARE(socketpair(AF_UNIX, SOCK_STREAM, 0, first), 0);
        QCOMPARE(socketpair(AF_UNIX, SOCK_STREAM, 0, second), 0);
        {
            const TlsPeer peer{QByteArrayLiteral("127.0.0.1"), false};
            TlsSession one(context, first[0], peer, kept);
            TlsSession other(context, second[0], peer, kept);
            QVERIFY(one.isValid() && other.isValid());
            SSL_SESSION *used = one.resumableSession();
            SSL_SESSION *usedByOther = other.resumableSession();
            QVERIFY(used && usedByOther);
            QVERIFY(used != kept);
            QVERIFY(usedByOther != kept && usedByOther != used);
            // What OpenSSL does to a connection's ticket on a fatal alert, or a connection freed
            // unfinished: the copy becomes unresumable, the kept ticket and the other's do not.
            SSL_CTX_remove_session(context, used);
            QCOMPARE(SSL_SESSION_is_resumable(used), 0);
            QCOMPARE(SSL_SESSION_is_resumable(kept), 1);
            QCOMPARE(SSL_SESSION_is_resumable(usedByOther), 1);
            SSL_SESSION_free(used);
            SSL_SESSION_free(usedByOther);
        }
        for (const int descriptor : {first[0], first[1], second[0], second[1]})
            ::close(descriptor);
        SSL_SESSION_free(kept);
        SSL_CTX_free(context);
    }

    void recordsWrittenForABatchWaitUntilTheBatchSendsThem()
    {
        TlsPair tls;
        QString why;
        QVERIFY2(tls.start(&why), qPrintable(why));
        const QByteArray request = "POST /v1/chat/completions HTTP/1.1\r\n\r\n{}";
        std::size_t taken = 0;
        QCOMPARE(tls.client->writeForBatch(request.constData(), std::size_t(request.size()), &taken), TlsSession::Step::Done);
        QCOMPARE(taken, std::size_t(request.size()));
        QVERIFY(tls.client->recordsWaiting().size() > request.size()); // encrypted, framed
        QCOMPARE(tls.serverReads(), QByteArray()); // nothing went out yet

        SocketBatch &batch = SocketBatch::forThisThread();
        if (!batch.available())
            QSKIP("io_uring is not available to this process");
        const QByteArrayView records = tls.client->recordsWaiting();
        const iovec piece{const_cast<char *>(records.data()), std::size_t(records.size())};
        QVERIFY(batch.add(tls.ends[0], &piece, 1, 7));
        const std::vector<SocketBatch::Result> results = batch.run();
        QCOMPARE(results.size(), std::size_t(1));
        QCOMPARE(results[0].bytes, long(records.size()));
        tls.client->recordsSent(std::size_t(results[0].bytes));
        QVERIFY(tls.client->recordsWaiting().isEmpty());
        QCOMPARE(tls.serverReads(), request);
    }

    void recordsASendLeftGoBeforeTheNextWrite()
    {
        TlsPair tls;
        QString why;
        QVERIFY2(tls.start(&why), qPrintable(why));
        std::size_t taken = 0;
        QCOMPARE(tls.client->writeForBatch("first ", 6, &taken), TlsSession::Step::Done);
        // A batch's send took only the first few bytes of the records.
        const QByteArrayView records = tls.client->recordsWaiting();
        QCOMPARE(::send(tls.ends[0], records.data(), 5, MSG_NOSIGNAL), ssize_t(5));
        tls.client->recordsSent(5);
        QCOMPARE(tls.client->recordsWaiting().size(), records.size() - 5);
        // The next write sends the rest first, then its own record.
        std::size_t written = 0;
        QCOMPARE(tls.client->write("second", 6, &written), TlsSession::Step::Done);
        QCOMPARE(written, std::size_t(6));
        QVERIFY(tls.client->recordsWaiting().isEmpty());
        QCOMPARE(tls.serverReads(), QByteArrayLiteral("first second"));
    }
};

QTEST_GUILESS_MAIN(tst_TlsSession)
#include "tst_TlsSession.moc"
