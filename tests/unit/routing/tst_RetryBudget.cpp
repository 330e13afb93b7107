#include "routing/RetryBudget.h"

#include <QtTest>

using sb::RetryBudget;

class tst_RetryBudget : public QObject {
    Q_OBJECT
private slots:
    void minimumWithFewRequests()
    {
        RetryBudget budget(0.20, 3);
        budget.requestStarted();
        QVERIFY(budget.tryStartRetry());
        QVERIFY(budget.tryStartRetry());
        QVERIFY(budget.tryStartRetry());
        QVERIFY(!budget.tryStartRetry());
        const auto s = budget.stats();
        QCOMPARE(s.granted, 3u);
        QCOMPARE(s.refused, 1u);
        QCOMPARE(s.retriesInFlight, 3);
        QCOMPARE(s.requestsInFlight, 1);
    }

    void twentyPercentOfRequestsInFlight()
    {
        RetryBudget budget; // 0.20, minimum 3
        for (int i = 0; i < 100; ++i)
            budget.requestStarted();
        int granted = 0;
        while (budget.tryStartRetry())
            ++granted;
        QCOMPARE(granted, 20);
        budget.retryFinished();
        QVERIFY(budget.tryStartRetry()); // a finished retry frees its slot
        QVERIFY(!budget.tryStartRetry());
        for (int i = 0; i < 5; ++i)
            budget.requestStarted(); // 105 → 21
        QVERIFY(budget.tryStartRetry());
        QVERIFY(!budget.tryStartRetry());
    }

    void fewerRequestsShrinkTheBudget()
    {
        RetryBudget budget;
        for (int i = 0; i < 50; ++i)
            budget.requestStarted();
        for (int i = 0; i < 10; ++i)
            QVERIFY(budget.tryStartRetry());
        for (int i = 0; i < 30; ++i)
            budget.requestFinished(); // 20 requests → 4 allowed, 10 still out
        budget.retryFinished();
        QVERIFY(!budget.tryStartRetry()); // 9 out > 4 allowed: no new retry until enough finish
        for (int i = 0; i < 6; ++i)
            budget.retryFinished(); // 3 out
        QVERIFY(budget.tryStartRetry());
        QVERIFY(!budget.tryStartRetry());
    }

    void allowedRetries()
    {
        RetryBudget budget(0.20, 3);
        QCOMPARE(budget.allowedRetries(0), 3);
        QCOMPARE(budget.allowedRetries(14), 3);
        QCOMPARE(budget.allowedRetries(20), 4);
        QCOMPARE(budget.allowedRetries(1000), 200);
        QCOMPARE(budget.allowedRetries(1004), 200);
        QCOMPARE(budget.allowedRetries(1005), 201);
        RetryBudget none(0.0, 0);
        QCOMPARE(none.allowedRetries(1000), 0);
        QVERIFY(!none.tryStartRetry());
    }

    void unmatchedFinishesDoNotWrap()
    {
        // A double finish must not wrap a counter into a budget of four billion retries.
        RetryBudget budget;
        budget.requestFinished();
        budget.retryFinished();
        const auto s = budget.stats();
        QCOMPARE(s.requestsInFlight, 0);
        QCOMPARE(s.retriesInFlight, 0);
        for (int i = 0; i < 3; ++i)
            QVERIFY(budget.tryStartRetry());
        QVERIFY(!budget.tryStartRetry());
    }

    void retriesDoNotDisturbRequestCount()
    {
        RetryBudget budget;
        for (int i = 0; i < 7; ++i)
            budget.requestStarted();
        for (int i = 0; i < 3; ++i)
            QVERIFY(budget.tryStartRetry());
        QCOMPARE(budget.stats().requestsInFlight, 7);
        for (int i = 0; i < 7; ++i)
            budget.requestFinished();
        QCOMPARE(budget.stats().requestsInFlight, 0);
        QCOMPARE(budget.stats().retriesInFlight, 3);
    }
};

QTEST_APPLESS_MAIN(tst_RetryBudget)
#include "tst_RetryBudget.moc"
