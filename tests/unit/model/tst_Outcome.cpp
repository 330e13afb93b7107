#include "model/Outcome.h"

#include <QtTest>

using namespace sb;

class tst_Outcome : public QObject {
    Q_OBJECT
private slots:
    void namesRoundTrip()
    {
        for (int i = 0; i < OutcomeKindCount; ++i) {
            const auto kind = static_cast<OutcomeKind>(i);
            QCOMPARE(outcomeKindFromString(QString::fromLatin1(toString(kind))), std::optional<OutcomeKind>(kind));
        }
        QCOMPARE(outcomeKindFromString(u"provider_down"), std::optional<OutcomeKind>(OutcomeKind::ProviderDown));
        QVERIFY(!outcomeKindFromString(u"bogus").has_value());
    }

    void retryabilityAndChannelBlame()
    {
        auto make = [](OutcomeKind k) { Outcome o; o.kind = k; return o; };
        QVERIFY(!make(OutcomeKind::Success).isRetryable());
        QVERIFY(!make(OutcomeKind::NonRetryableParamError).isRetryable());
        QVERIFY(make(OutcomeKind::RetryableRateLimit).isRetryable());
        QVERIFY(make(OutcomeKind::ProviderDown).isRetryable());
        QVERIFY(make(OutcomeKind::Timeout).isRetryable());
        QVERIFY(make(OutcomeKind::ConnectFailed).isRetryable());
        // Rate limits, auth and caller errors must not count against the channel's health.
        QVERIFY(!make(OutcomeKind::RetryableRateLimit).isChannelFailure());
        QVERIFY(!make(OutcomeKind::AuthError).isChannelFailure());
        QVERIFY(!make(OutcomeKind::NonRetryableParamError).isChannelFailure());
        QVERIFY(make(OutcomeKind::ProviderDown).isChannelFailure());
        QVERIFY(make(OutcomeKind::Timeout).isChannelFailure());
        const Outcome local = Outcome::local(OutcomeKind::ConnectFailed, QStringLiteral("refused"));
        QCOMPARE(local.origin, OutcomeOrigin::Local);
        QVERIFY(local.isChannelFailure());
    }
};

QTEST_APPLESS_MAIN(tst_Outcome)
#include "tst_Outcome.moc"
