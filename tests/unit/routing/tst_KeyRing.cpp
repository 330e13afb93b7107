#include "FakeClock.h"

#include "common/Logging.h"
#include "common/SecretMask.h"
#include "routing/KeyRing.h"

#include <QtTest>

#include <array>
#include <atomic>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using sb::ApiKeyConfig;
using sb::KeyRing;
using sb::test::FakeClock;

namespace {
std::vector<ApiKeyConfig> keys(int n)
{
    std::vector<ApiKeyConfig> out;
    for (int i = 1; i <= n; ++i) {
        ApiKeyConfig k;
        k.id = i;
        k.label = QStringLiteral("key %1").arg(i);
        k.secret = QStringLiteral("sk-test-secret-value-%1-ABCD%1").arg(i);
        out.push_back(k);
    }
    return out;
}

int leaseId(KeyRing &ring)
{
    const auto lease = ring.next();
    return lease ? lease->keyId : -1;
}
} // namespace

class tst_KeyRing : public QObject {
    Q_OBJECT
private slots:
    void roundRobinOverActiveKeys()
    {
        FakeClock clock;
        KeyRing ring(clock, keys(3));
        QCOMPARE(leaseId(ring), 1);
        QCOMPARE(leaseId(ring), 2);
        QCOMPARE(leaseId(ring), 3);
        QCOMPARE(leaseId(ring), 1);
        const auto lease = ring.next();
        QVERIFY(lease);
        QCOMPARE(lease->secret, keys(3)[1].secret);
        QCOMPARE(ring.stats().leases, 5u);
        QCOMPARE(ring.totalCount(), 3);
        QCOMPARE(ring.healthyCount(), 3);
    }

    void aKeyWhoseSecretCannotBeReadIsNeverLeased()
    {
        FakeClock clock;
        std::vector<ApiKeyConfig> configured = keys(2);
        configured[0].secret.clear();
        configured[0].unreadableReason = QStringLiteral("it is kept in the keyring, which cannot be reached (no bus)");
        KeyRing ring(clock, configured);
        for (int i = 0; i < 4; ++i)
            QCOMPARE(leaseId(ring), 2);
        QCOMPARE(ring.status()[0].state, KeyRing::KeyState::Disabled);
        QVERIFY(ring.status()[0].disabledReason.contains(QStringLiteral("cannot be read")));
        QVERIFY(ring.unreadableSecretReason().isEmpty()); // key 2 still serves

        // With every key unreadable nothing is leased (never a keyless Lease{0, ""}), and the ring says why.
        configured[1].secret.clear();
        configured[1].unreadableReason = configured[0].unreadableReason;
        KeyRing none(clock, configured);
        QVERIFY(!none.next());
        QVERIFY(!none.soonestAvailableIn()); // no wait helps
        QCOMPARE(none.unreadableSecretReason(), configured[0].unreadableReason);
        KeyRing keyless(clock, {});
        QVERIFY(keyless.unreadableSecretReason().isEmpty());
    }

    void rateLimitRotatesToNextKeyAndRetryAfterKeepsItOut()
    {
        FakeClock clock;
        KeyRing ring(clock, keys(2));
        QCOMPARE(leaseId(ring), 1);
        ring.reportRateLimited(1, 7000ms);
        QCOMPARE(leaseId(ring), 2);   // the next attempt takes another key
        QCOMPARE(leaseId(ring), 2);   // and key 1 stays out …
        QCOMPARE(ring.healthyCount(), 1);
        clock.advance(6999ms);
        QCOMPARE(leaseId(ring), 2);   // … for the whole Retry-After …
        QCOMPARE(ring.status()[0].state, KeyRing::KeyState::CoolingDown);
        clock.advance(1ms);
        QCOMPARE(leaseId(ring), 1);   // … then it is back in the rotation
        QCOMPARE(leaseId(ring), 2);
        QCOMPARE(ring.status()[0].state, KeyRing::KeyState::Active);
        QCOMPARE(ring.stats().coolDowns, 1u);
    }

    void defaultCoolDownWithoutRetryAfter()
    {
        FakeClock clock;
        KeyRing ring(clock, keys(2), 12s);
        ring.reportRateLimited(1, std::nullopt);
        clock.advance(11999ms);
        QCOMPARE(ring.healthyCount(), 1);
        clock.advance(1ms);
        QCOMPARE(ring.healthyCount(), 2);

        // The standard default is short: a burst over a per-second limit is over in a second.
        KeyRing standard(clock, keys(1));
        standard.reportRateLimited(1, std::nullopt);
        clock.advance(999ms);
        QVERIFY(standard.allCoolingOrDisabled());
        clock.advance(1ms);
        QVERIFY(!standard.allCoolingOrDisabled());
    }

    void theProvidersHintIsTheCoolDownExactly()
    {
        FakeClock clock;
        KeyRing ring(clock, keys(1));
        ring.reportRateLimited(1, 14000ms, "retryDelay");
        QCOMPARE(ring.soonestAvailableIn(), std::optional<sb::Clock::Duration>(14s));
        clock.advance(14s - 1ms);
        QCOMPARE(leaseId(ring), -1); // never the same key inside its cool-down
        clock.advance(1ms);
        QCOMPARE(leaseId(ring), 1);
    }

    void theRequestsOfOneBurstDoNotLengthenTheRest()
    {
        // Five requests were on their way when the first 429 came back; their 429s are the same
        // refusal. Counting them once turned a one-second burst into half a minute of rest.
        FakeClock clock;
        KeyRing ring(clock, keys(1));
        for (int i = 0; i < 5; ++i) {
            ring.reportRateLimited(1, std::nullopt);
            clock.advance(10ms);
        }
        QVERIFY(ring.soonestAvailableIn() <= std::optional<sb::Clock::Duration>(1s));
        clock.advance(1s);
        QCOMPARE(leaseId(ring), 1); // serving again once the rest is over
        // Refused again after the rest: now the guess grows …
        ring.reportRateLimited(1, std::nullopt);
        QCOMPARE(ring.soonestAvailableIn(), std::optional<sb::Clock::Duration>(2s));
        clock.advance(2s);
        // … until a success ends the run.
        ring.reportSuccess(1);
        ring.reportRateLimited(1, std::nullopt);
        QCOMPARE(ring.soonestAvailableIn(), std::optional<sb::Clock::Duration>(1s));
    }

    void theCoolDownsLineSaysHowLongAndWhetherTheProviderSaidSo()
    {
        FakeClock clock;
        KeyRing ring(clock, keys(1));
        auto events = std::make_shared<sb::EventDispatcher>();
        std::vector<sb::HealthEvent> seen;
        events->setSink([&](const sb::HealthEvent &e) { seen.push_back(e); });
        ring.setEvents(events, 7, QStringLiteral("acme"));
        ring.reportRateLimited(1, 14000ms, "retryDelay");
        clock.advance(14s);
        ring.reportRateLimited(1, std::nullopt);
        clock.advance(2s);
        ring.reportRateLimited(1, std::nullopt);
        QCOMPARE(seen.size(), std::size_t(3));
        QVERIFY2(seen[0].reason.endsWith(QStringLiteral("got a 429, cooling for 14.0 s (the provider's hint, retryDelay)")),
                 qPrintable(seen[0].reason));
        QVERIFY2(seen[1].reason.endsWith(QStringLiteral("got a 429, cooling for 2.0 s (no hint from the provider: the default doubled 1 time, "
                                                        "429 number 2 in a row)")),
                 qPrintable(seen[1].reason));
        QVERIFY2(seen[2].reason.contains(QStringLiteral("cooling for 4.0 s (no hint")), qPrintable(seen[2].reason));
        KeyRing fresh(clock, keys(1));
        fresh.setEvents(events, 7, QStringLiteral("acme"));
        fresh.reportRateLimited(1, std::nullopt);
        QVERIFY2(seen.back().reason.endsWith(QStringLiteral("cooling for 1.0 s (no hint from the provider: the default)")),
                 qPrintable(seen.back().reason));
    }

    void shorterRetryAfterDoesNotShortenACoolDown()

    {
        FakeClock clock;
        KeyRing ring(clock, keys(1));
        ring.reportRateLimited(1, 20000ms);
        ring.reportRateLimited(1, 1000ms);
        clock.advance(19s);
        QVERIFY(!ring.next());
        clock.advance(1s);
        QCOMPARE(leaseId(ring), 1);
    }

    void successDoesNotEndARetryAfter()
    {
        // A stream sent on key 1 before its 429 may finish fine afterwards; the provider still asked us
        // to wait, so the key stays out.
        FakeClock clock;
        KeyRing ring(clock, keys(1));
        ring.reportRateLimited(1, 7000ms);
        ring.reportSuccess(1);
        QVERIFY(ring.allCoolingOrDisabled());
        clock.advance(7s);
        QCOMPARE(leaseId(ring), 1);
    }

    void repeated429sWithoutRetryAfterCoolLonger()
    {
        FakeClock clock;
        KeyRing ring(clock, keys(1), 10s);
        const std::array<std::chrono::seconds, 7> expected{10s, 20s, 40s, 80s, 160s, 320s, 320s}; // doubles, at most 32×
        for (auto wait : expected) {
            ring.reportRateLimited(1, std::nullopt);
            QCOMPARE(ring.soonestAvailableIn(), std::optional<sb::Clock::Duration>(wait));
            clock.advance(wait);
            QCOMPARE(ring.healthyCount(), 1);
        }
        ring.reportSuccess(1); // the run of 429s is over
        ring.reportRateLimited(1, std::nullopt);
        QCOMPARE(ring.soonestAvailableIn(), std::optional<sb::Clock::Duration>(10s));
        clock.advance(10s);
        // A Retry-After is taken as given, whatever the run of 429s.
        ring.reportRateLimited(1, 3000ms);
        QCOMPARE(ring.soonestAvailableIn(), std::optional<sb::Clock::Duration>(3s));
    }

    void authErrorDisablesUntilANewKeyRing()
    {
        FakeClock clock;
        const auto config = keys(2);
        KeyRing ring(clock, config);
        ring.reportAuthError(1, QStringLiteral("401 from provider"));
        for (int i = 0; i < 5; ++i)
            QCOMPARE(leaseId(ring), 2);
        clock.advance(24h);
        QCOMPARE(leaseId(ring), 2); // time does not heal a bad key
        ring.reportSuccess(1);
        ring.reportRateLimited(1, 1ms); // nor does any other report
        QCOMPARE(leaseId(ring), 2);
        const auto status = ring.status();
        QCOMPARE(status[0].state, KeyRing::KeyState::Disabled);
        QCOMPARE(status[0].disabledReason, QStringLiteral("401 from provider"));
        QCOMPARE(ring.stats().disables, 1u);
        QCOMPARE(ring.healthyCount(), 1);

        // Editing the provider builds a new ring from the (edited) config: the key is back.
        KeyRing edited(clock, config);
        QCOMPARE(leaseId(edited), 1);
    }

    void configDisabledKeyIsSkipped()
    {
        FakeClock clock;
        auto config = keys(3);
        config[1].enabled = false;
        config[1].disabledReason = QStringLiteral("revoked by the user");
        KeyRing ring(clock, config);
        QCOMPARE(leaseId(ring), 1);
        QCOMPARE(leaseId(ring), 3);
        QCOMPARE(leaseId(ring), 1);
        QCOMPARE(ring.status()[1].disabledReason, QStringLiteral("revoked by the user"));
    }

    void storedRefusalStartsTheKeyDisabledAndAKeptRingAdoptsOne()
    {
        FakeClock clock;
        auto config = keys(3);
        config[1].refusedAtMs = 1234;
        config[1].refusedReason = QStringLiteral("HTTP 401: invalid api key");
        KeyRing ring(clock, config);
        QCOMPARE(ring.status()[1].state, KeyRing::KeyState::Disabled);
        QCOMPARE(ring.status()[1].disabledReason, QStringLiteral("HTTP 401: invalid api key"));
        QCOMPARE(leaseId(ring), 1);
        QCOMPARE(leaseId(ring), 3);

        // A refusal stored for a ring that is kept (another process refused it): adopted, and the
        // cool-down running on another key is not forgotten.
        KeyRing kept(clock, keys(3));
        kept.reportRateLimited(1, std::chrono::milliseconds(30'000));
        auto refused = keys(3);
        refused[2].refusedAtMs = 99;
        refused[2].refusedReason = QStringLiteral("HTTP 403");
        kept.adoptRefusals(refused);
        QCOMPARE(kept.status()[2].state, KeyRing::KeyState::Disabled);
        QCOMPARE(kept.status()[0].state, KeyRing::KeyState::CoolingDown);
        QCOMPARE(leaseId(kept), 2);
        QCOMPARE(leaseId(kept), 2);
    }

    void allCoolingMeansRateLimited()
    {
        FakeClock clock;
        KeyRing ring(clock, keys(3));
        QVERIFY(!ring.allCoolingOrDisabled());
        QCOMPARE(ring.soonestAvailableIn(), std::optional<sb::Clock::Duration>(0ns));
        ring.reportRateLimited(1, 9000ms);
        ring.reportRateLimited(2, 4000ms);
        QVERIFY(!ring.allCoolingOrDisabled());
        ring.reportAuthError(3, QStringLiteral("403"));
        QVERIFY(ring.allCoolingOrDisabled());
        QVERIFY(!ring.next());
        QCOMPARE(ring.stats().exhausted, 1u);
        QCOMPARE(ring.healthyCount(), 0);
        QCOMPARE(ring.soonestAvailableIn(), std::optional<sb::Clock::Duration>(4s)); // key 2 comes back first
        clock.advance(1500ms);
        QCOMPARE(ring.soonestAvailableIn(), std::optional<sb::Clock::Duration>(2500ms));
        clock.advance(2500ms);
        QVERIFY(!ring.allCoolingOrDisabled());
        QCOMPARE(leaseId(ring), 2);
    }

    void allDisabledHasNoSoonest()
    {
        FakeClock clock;
        KeyRing ring(clock, keys(2));
        ring.reportAuthError(1, QStringLiteral("401"));
        ring.reportAuthError(2, QStringLiteral("401"));
        QVERIFY(ring.allCoolingOrDisabled());
        QVERIFY(!ring.soonestAvailableIn().has_value());
    }

    void providerWithoutKeysNeedsNone()
    {
        FakeClock clock;
        KeyRing ring(clock, {});
        const auto lease = ring.next();
        QVERIFY(lease);
        QCOMPARE(lease->keyId, 0);
        QVERIFY(lease->secret.isEmpty());
        QVERIFY(!ring.allCoolingOrDisabled());
        QCOMPARE(ring.totalCount(), 0);
        QCOMPARE(ring.healthyCount(), 0);
        QVERIFY(ring.status().empty());
    }

    void providerWithoutKeysCoolsAsAWholeOnA429()
    {
        FakeClock clock;
        KeyRing ring(clock, {}, 2s);
        ring.reportRateLimited(0, 5000ms);
        QVERIFY(ring.allCoolingOrDisabled());
        QVERIFY(!ring.next());
        QCOMPARE(ring.soonestAvailableIn().value(), std::chrono::duration_cast<sb::Clock::Duration>(5000ms));
        clock.advance(5s);
        QVERIFY(!ring.allCoolingOrDisabled());
        QCOMPARE(leaseId(ring), 0);
        ring.reportSuccess(0); // ends the run of 429s
        // Without Retry-After: the configured default, doubled for the next 429 in a row.
        ring.reportRateLimited(0, std::nullopt);
        clock.advance(1999ms);
        QVERIFY(!ring.next());
        clock.advance(1ms);
        QCOMPARE(leaseId(ring), 0);
        ring.reportRateLimited(0, std::nullopt);
        clock.advance(3999ms);
        QVERIFY(ring.allCoolingOrDisabled());
        clock.advance(1ms);
        QVERIFY(!ring.allCoolingOrDisabled());
        // An auth error has no key to disable; the channel's health records it instead.
        ring.reportAuthError(0, QStringLiteral("401"));
        QCOMPARE(leaseId(ring), 0);
        QCOMPARE(ring.stats().disables, 0u);
        QVERIFY(ring.status().empty());
    }

    void coolDownsAndDisablesAreReportedOnceAndMasked()
    {
        FakeClock clock;
        KeyRing ring(clock, keys(2), 10s);
        auto events = std::make_shared<sb::EventDispatcher>();
        std::vector<sb::HealthEvent> seen;
        events->setSink([&](const sb::HealthEvent &e) { seen.push_back(e); });
        ring.setEvents(events, 7, QStringLiteral("acme"));
        ring.reportRateLimited(1, std::nullopt);
        ring.reportRateLimited(1, 20000ms); // lengthens a running cool-down: no news
        QCOMPARE(seen.size(), std::size_t(1));
        QCOMPARE(seen[0].type, sb::HealthEvent::Type::Key);
        QCOMPARE(seen[0].providerId, 7);
        QCOMPARE(seen[0].keyId, 1);
        QCOMPARE(seen[0].channelId, 0);
        QCOMPARE(seen[0].to, QStringLiteral("cooling_down"));
        QVERIFY2(seen[0].reason.startsWith(QStringLiteral("acme key 'key 1' (")), qPrintable(seen[0].reason));
        ring.reportAuthError(2, QStringLiteral("401 from provider"));
        ring.reportAuthError(2, QStringLiteral("401 again")); // already disabled
        QCOMPARE(seen.size(), std::size_t(2));
        QCOMPARE(seen[1].to, QStringLiteral("disabled"));
        QVERIFY(seen[1].reason.contains(QStringLiteral("401 from provider")));
        for (const auto &e : seen) {
            QVERIFY2(!e.reason.contains(QStringLiteral("sk-test-secret-value")), qPrintable(e.reason));
            QVERIFY(e.reason.contains(sb::maskSecret(keys(2)[e.keyId - 1].secret)));
        }
        clock.advance(21s);
        ring.reportRateLimited(1, std::nullopt); // serving again, then cooled again: news
        QCOMPARE(seen.size(), std::size_t(3));
    }

    void defaultCoolDownIsASetting()
    {
        FakeClock clock;
        KeyRing ring(clock, keys(1), 30s);
        ring.setDefaultCoolDown(3s); // a reloaded configuration keeps the ring and its running cool-downs
        ring.reportRateLimited(1, std::nullopt);
        clock.advance(2999ms);
        QCOMPARE(leaseId(ring), -1);
        clock.advance(1ms);
        QCOMPARE(leaseId(ring), 1);
    }

    void unknownKeyIdIsIgnored()
    {
        FakeClock clock;
        KeyRing ring(clock, keys(1));
        ring.reportRateLimited(99, 5000ms);
        ring.reportAuthError(99, QStringLiteral("x"));
        QCOMPARE(ring.stats().coolDowns, 0u);
        QCOMPARE(ring.stats().disables, 0u);
        QCOMPARE(leaseId(ring), 1);
    }

    void secretsNeverInStatusOrLogs()
    {
        sb::LoggingOptions options;
        options.toStderr = false;
        options.level = QStringLiteral("debug");
        sb::setupLogging(options);

        FakeClock clock;
        const auto config = keys(2);
        KeyRing ring(clock, config);
        ring.reportRateLimited(1, 3000ms);
        ring.reportAuthError(2, QStringLiteral("401 invalid key"));

        const QString lines = sb::recentLogLines().join(QLatin1Char('\n'));
        QVERIFY2(lines.contains(QStringLiteral("key 1")), qPrintable(lines)); // the events were logged …
        QVERIFY(lines.contains(QStringLiteral("key 2")));
        for (const auto &k : config) {
            QVERIFY2(!lines.contains(k.secret), "a secret reached the log"); // … without the secrets
            QVERIFY(lines.contains(sb::maskSecret(k.secret)));
        }
        for (const auto &s : ring.status()) {
            QVERIFY(!s.masked.isEmpty());
            QVERIFY(!s.masked.contains(QStringLiteral("secret-value")));
            QCOMPARE(s.masked, sb::maskSecret(config[static_cast<std::size_t>(s.keyId - 1)].secret));
        }
    }

    void concurrentLeasesAndReports()
    {
        // 4 workers lease and report at once: nothing is lost from the counters, and every lease is a
        // key that was active (key 3 is disabled before the threads start).
        FakeClock clock;
        KeyRing ring(clock, keys(3));
        ring.reportAuthError(3, QStringLiteral("401"));
        std::atomic<int> leased{0}, none{0}, wrong{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                for (int i = 0; i < 20000; ++i) {
                    const auto lease = ring.next();
                    if (!lease) {
                        ++none;
                    } else {
                        ++leased;
                        if (lease->keyId == 3)
                            ++wrong;
                        if ((i + t) % 97 == 0)
                            ring.reportRateLimited(lease->keyId, 1ms);
                        else
                            ring.reportSuccess(lease->keyId);
                    }
                    if (t == 0 && i % 50 == 0)
                        clock.advance(1ms);
                }
            });
        for (auto &t : threads)
            t.join();
        QCOMPARE(wrong.load(), 0);
        QCOMPARE(ring.stats().leases, static_cast<std::uint64_t>(leased.load()));
        QCOMPARE(ring.stats().exhausted, static_cast<std::uint64_t>(none.load()));
        QCOMPARE(leased.load() + none.load(), 80000);
    }
};

QTEST_APPLESS_MAIN(tst_KeyRing)
#include "tst_KeyRing.moc"
