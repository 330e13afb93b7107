#include "telemetry/PrometheusExporter.h"

#include <QLocale>
#include <QRegularExpression>

#include <cmath>

namespace sb {

namespace {

const char *typeName(PrometheusExporter::Type type)
{
    switch (type) {
    case PrometheusExporter::Type::Counter: return "counter";
    case PrometheusExporter::Type::Gauge: return "gauge";
    case PrometheusExporter::Type::Histogram: return "histogram";
    }
    return "untyped";
}

} // namespace

bool PrometheusExporter::validMetricName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[a-zA-Z_:][a-zA-Z0-9_:]*$"));
    return re.match(name).hasMatch();
}

bool PrometheusExporter::validLabelName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[a-zA-Z_][a-zA-Z0-9_]*$"));
    return re.match(name).hasMatch() && !name.startsWith(QLatin1String("__"));
}

QString PrometheusExporter::escapeLabelValue(const QString &value)
{
    QString out;
    out.reserve(value.size());
    for (const QChar c : value) {
        if (c == QLatin1Char('\\'))
            out += QLatin1String("\\\\");
        else if (c == QLatin1Char('"'))
            out += QLatin1String("\\\"");
        else if (c == QLatin1Char('\n'))
            out += QLatin1String("\\n");
        else
            out += c;
    }
    return out;
}

QString PrometheusExporter::escapeHelp(const QString &help)
{
    QString out = help;
    out.replace(QLatin1Char('\\'), QLatin1String("\\\\"));
    out.replace(QLatin1Char('\n'), QLatin1String("\\n"));
    return out;
}

QString PrometheusExporter::formatValue(double value)
{
    if (std::isnan(value))
        return QStringLiteral("NaN");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("+Inf") : QStringLiteral("-Inf");
    // Integers (counters, bucket counts) print exactly; the rest with enough digits to round-trip.
    if (value == std::floor(value) && std::fabs(value) < 1e15)
        return QString::number(static_cast<qint64>(value));
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

void PrometheusExporter::family(const QString &name, const QString &help, Type type)
{
    Q_ASSERT_X(validMetricName(name), "PrometheusExporter::family", "invalid metric name");
    Q_ASSERT_X(!m_written.count(name), "PrometheusExporter::family", "a family is written once");
    m_written.insert(name);
    m_family = name;
    m_type = type;
    m_text += "# HELP " + name.toUtf8() + ' ' + escapeHelp(help).toUtf8() + '\n';
    m_text += "# TYPE " + name.toUtf8() + ' ' + typeName(type) + '\n';
}

void PrometheusExporter::writeSample(const QString &name, const Labels &labels, const QString &value)
{
    m_text += name.toUtf8();
    if (!labels.empty() || !m_common.empty()) {
        m_text += '{';
        bool first = true;
        for (const Labels *set : std::initializer_list<const Labels *>{&m_common, &labels})
            for (const auto &[label, labelValue] : *set) {
                Q_ASSERT_X(validLabelName(label), "PrometheusExporter", "invalid label name");
                if (!first)
                    m_text += ',';
                first = false;
                m_text += label.toUtf8() + "=\"" + escapeLabelValue(labelValue).toUtf8() + '"';
            }
        m_text += '}';
    }
    m_text += ' ' + value.toUtf8() + '\n';
}

void PrometheusExporter::sample(const Labels &labels, double value)
{
    Q_ASSERT_X(m_type != Type::Histogram, "PrometheusExporter::sample", "use histogram() for histograms");
    writeSample(m_family, labels, formatValue(value));
}

void PrometheusExporter::histogram(const Labels &labels, const Histogram::Snapshot &histogram)
{
    Q_ASSERT_X(m_type == Type::Histogram, "PrometheusExporter::histogram", "the family is not a histogram");
    Labels bucketLabels = labels;
    bucketLabels.emplace_back(QStringLiteral("le"), QString());
    for (std::size_t i = 0; i < histogram.cumulative.size(); ++i) {
        bucketLabels.back().second = i < histogram.upperBounds.size() ? formatValue(histogram.upperBounds[i]) : QStringLiteral("+Inf");
        writeSample(m_family + QLatin1String("_bucket"), bucketLabels, formatValue(double(histogram.cumulative[i])));
    }
    writeSample(m_family + QLatin1String("_sum"), labels, formatValue(histogram.sumSeconds));
    writeSample(m_family + QLatin1String("_count"), labels, formatValue(double(histogram.count)));
}

} // namespace sb
