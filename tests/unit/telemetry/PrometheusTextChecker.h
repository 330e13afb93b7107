#pragma once

#include <QMap>
#include <QString>
#include <QStringList>

// A line-by-line checker of the Prometheus text exposition format 0.0.4, written from the format's
// rules so the tests do not trust the exporter to check itself: metric and label names, label value
// escaping, HELP/TYPE before a family's samples and once only, a family's samples together, counters
// and gauges named as their family, histogram buckets with `le`, ascending, cumulative and ending in
// +Inf equal to `_count`, no series twice. Used by tst_PrometheusExporter and tst_AdminApi.
class PrometheusTextChecker {
public:
    // Empty when the text is valid; otherwise one message per problem, with its line number.
    QStringList check(const QByteArray &text);
    // After check(): every sample, keyed "name{label="value",…}" with labels sorted by name and values
    // unescaped (so tests can look a series up without caring about order).
    const QMap<QString, double> &samples() const { return m_samples; }
    QString typeOf(const QString &family) const { return m_types.value(family); }

    static QString key(const QString &name, QMap<QString, QString> labels);

private:
    QMap<QString, double> m_samples;
    QMap<QString, QString> m_types;
};
