#pragma once

#include "telemetry/Histogram.h"

#include <QByteArray>
#include <QString>

#include <set>
#include <utility>
#include <vector>

namespace sb {

// Writes the Prometheus text exposition format, version 0.0.4: one `# HELP` and `# TYPE` line per
// family before its samples, label values escaped (\\, \" and \n), counters named `_total`,
// histograms as cumulative `_bucket{le=…}` lines ending in +Inf, then `_sum` and `_count`.
// A family is written once: samples of one family must be added together, right after family().
class PrometheusExporter {
public:
    enum class Type { Counter, Gauge, Histogram };
    using Labels = std::vector<std::pair<QString, QString>>;

    static constexpr const char *contentType = "text/plain; version=0.0.4; charset=utf-8";

    // Labels every sample written from now on carries first (an instance of a fleet names itself).
    void setCommonLabels(Labels labels) { m_common = std::move(labels); }
    // Starts a family. `name` must match [a-zA-Z_:][a-zA-Z0-9_:]* (checked; a bad name is a bug).
    void family(const QString &name, const QString &help, Type type);
    void sample(const Labels &labels, double value);
    // For counters the `_total` suffix is part of the family name given to family().
    void histogram(const Labels &labels, const Histogram::Snapshot &histogram);

    QByteArray text() const { return m_text; }

    static QString escapeLabelValue(const QString &value);
    static QString escapeHelp(const QString &help);
    static QString formatValue(double value);
    static bool validMetricName(const QString &name);
    static bool validLabelName(const QString &name);

private:
    void writeSample(const QString &name, const Labels &labels, const QString &value);

    QByteArray m_text;
    Labels m_common;
    QString m_family;
    Type m_type = Type::Gauge;
    std::set<QString> m_written;
};

} // namespace sb
