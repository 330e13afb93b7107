#include "store/KeychainSecretStore.h"

#include "common/Clock.h"

#include <QCoreApplication>
#include <QEventLoop>

#if defined(SB_HAVE_QTKEYCHAIN)
#include <qt6keychain/keychain.h>
#endif

#include <memory>

namespace sb {

namespace {

#if defined(SB_HAVE_QTKEYCHAIN)
struct JobResult {
    bool finished = false;
    QKeychain::Error error = QKeychain::OtherError;
    QString errorString;
    QString text;
};

// Runs one QtKeychain job to completion or timeout. The job deletes itself when it finishes, also
// after we stopped waiting, so a late answer cannot touch freed memory.
JobResult runJob(QKeychain::Job *job, std::chrono::milliseconds timeout)
{
    auto result = std::make_shared<JobResult>();
    QEventLoop loop;
    QObject::connect(job, &QKeychain::Job::finished, &loop, [result, &loop](QKeychain::Job *j) {
        result->finished = true;
        result->error = j->error();
        result->errorString = j->errorString();
        if (auto *read = qobject_cast<QKeychain::ReadPasswordJob *>(j))
            result->text = read->textData();
        loop.quit();
    });
    job->setAutoDelete(true);
    job->setInsecureFallback(false); // never a plaintext file behind the user's back
    // The real clock, always: this waits on a service outside the process, in real time.
    const auto giveUp = SystemClock::instance().createTimer([&loop] { loop.quit(); });
    giveUp->start(timeout);
    job->start();
    if (!result->finished)
        loop.exec();
    JobResult copy = *result;
    if (!copy.finished)
        copy.errorString = QStringLiteral("the keyring did not answer within %1 ms").arg(timeout.count());
    return copy;
}
#endif

bool haveEventLoopHost(QString *why)
{
    if (QCoreApplication::instance())
        return true;
    if (why)
        *why = QStringLiteral("the keyring needs a running application object");
    return false;
}

} // namespace

KeychainSecretStore::KeychainSecretStore(QString scope, std::chrono::milliseconds timeout)
    : m_scope(std::move(scope))
    , m_timeout(timeout)
{
}

QString KeychainSecretStore::serviceName()
{
    return QStringLiteral("Switchboard");
}

QString KeychainSecretStore::entryName(const QString &keyId) const
{
    return m_scope.isEmpty() ? keyId : m_scope + QLatin1Char('/') + keyId;
}

bool KeychainSecretStore::probe(std::chrono::milliseconds timeout, QString *why)
{
#if defined(SB_HAVE_QTKEYCHAIN)
    if (!haveEventLoopHost(why))
        return false;
    auto *job = new QKeychain::ReadPasswordJob(serviceName());
    job->setKey(QStringLiteral("switchboard-probe/does-not-exist"));
    const JobResult r = runJob(job, timeout);
    if (r.finished && (r.error == QKeychain::EntryNotFound || r.error == QKeychain::NoError))
        return true;
    if (why)
        *why = r.errorString.isEmpty() ? QStringLiteral("no keyring service answered") : r.errorString;
    return false;
#else
    Q_UNUSED(timeout);
    if (why)
        *why = QStringLiteral("this build has no keyring support (QtKeychain)");
    return false;
#endif
}

bool KeychainSecretStore::store(const QString &keyId, const QString &secret, QString *error)
{
#if defined(SB_HAVE_QTKEYCHAIN)
    if (!haveEventLoopHost(error))
        return false;
    auto *job = new QKeychain::WritePasswordJob(serviceName());
    job->setKey(entryName(keyId));
    job->setTextData(secret);
    const JobResult r = runJob(job, m_timeout);
    if (r.finished && r.error == QKeychain::NoError)
        return true;
    if (error)
        *error = QStringLiteral("Cannot store %1 in the keyring: %2.").arg(keyId, r.errorString);
    return false;
#else
    Q_UNUSED(secret);
    if (error)
        *error = QStringLiteral("Cannot store %1: this build has no keyring support.").arg(keyId);
    return false;
#endif
}

std::optional<QString> KeychainSecretStore::load(const QString &keyId, QString *error)
{
#if defined(SB_HAVE_QTKEYCHAIN)
    if (!haveEventLoopHost(error))
        return std::nullopt;
    auto *job = new QKeychain::ReadPasswordJob(serviceName());
    job->setKey(entryName(keyId));
    const JobResult r = runJob(job, m_timeout);
    if (r.finished && r.error == QKeychain::NoError)
        return r.text;
    if (r.finished && r.error == QKeychain::EntryNotFound)
        return std::nullopt;
    if (error)
        *error = QStringLiteral("Cannot read %1 from the keyring: %2.").arg(keyId, r.errorString);
    return std::nullopt;
#else
    if (error)
        *error = QStringLiteral("Cannot read %1: this build has no keyring support.").arg(keyId);
    return std::nullopt;
#endif
}

bool KeychainSecretStore::remove(const QString &keyId, QString *error)
{
#if defined(SB_HAVE_QTKEYCHAIN)
    if (!haveEventLoopHost(error))
        return false;
    auto *job = new QKeychain::DeletePasswordJob(serviceName());
    job->setKey(entryName(keyId));
    const JobResult r = runJob(job, m_timeout);
    if (r.finished && (r.error == QKeychain::NoError || r.error == QKeychain::EntryNotFound))
        return true;
    if (error)
        *error = QStringLiteral("Cannot remove %1 from the keyring: %2.").arg(keyId, r.errorString);
    return false;
#else
    if (error)
        *error = QStringLiteral("Cannot remove %1: this build has no keyring support.").arg(keyId);
    return false;
#endif
}

} // namespace sb
