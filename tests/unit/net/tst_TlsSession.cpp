// A client connection resumes from a ticket object of its own: what OpenSSL marks on the ticket a
// connection uses stays off the one the engine keeps for the next connections.
#include "net/TlsSession.h"

#include <QtTest>

#include <openssl/ssl.h>

#include <sys/socket.h>
#include <unistd.h>

using namespace sb;

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
};

QTEST_GUILESS_MAIN(tst_TlsSession)
#include "tst_TlsSession.moc"
