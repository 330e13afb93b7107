#include "PrometheusTextChecker.h"

#include <QRegularExpression>
#include <QSet>

#include <cmath>
#include <map>
#include <vector>

namespace {

const QRegularExpression metricName(QStringLiteral("^[a-zA-Z_:][a-zA-Z0-9_:]*$"));
const QRegularExpression labelName(QStringLiteral("^[a-zA-Z_][a-zA-Z0-9_]*$"));

bool parseValue(const QString &text, double *value)
{
    if (text == QLatin1String("NaN")) {
        *value = std::nan("");
        return true;
    }
    if (text == QLatin1String("+Inf") || text == QLatin1String("-Inf")) {
        *value = text.startsWith(QLatin1Char('+')) ? INFINITY : -INFINITY;
        return true;
    }
    bool ok = false;
    *value = text.toDouble(&ok);
    return ok;
}

// Parses `{a="x",b="y"}` starting at text[*pos] == '{'; advances past '}'.
bool parseLabels(const QString &text, int *pos, QMap<QString, QString> *labels, QString *error)
{
    int i = *pos + 1;
    while (true) {
        if (i >= text.size()) {
            *error = QStringLiteral("unterminated label set");
            return false;
        }
        if (text[i] == QLatin1Char('}')) {
            *pos = i + 1;
            return true;
        }
        int eq = text.indexOf(QLatin1Char('='), i);
        if (eq < 0) {
            *error = QStringLiteral("label without '='");
            return false;
        }
        const QString name = text.mid(i, eq - i);
        if (!labelName.match(name).hasMatch() || name.startsWith(QLatin1String("__"))) {
            *error = QStringLiteral("bad label name '%1'").arg(name);
            return false;
        }
        if (labels->contains(name)) {
            *error = QStringLiteral("label '%1' twice").arg(name);
            return false;
        }
        i = eq + 1;
        if (i >= text.size() || text[i] != QLatin1Char('"')) {
            *error = QStringLiteral("label value of '%1' not quoted").arg(name);
            return false;
        }
        ++i;
        QString value;
        bool closed = false;
        while (i < text.size()) {
            const QChar c = text[i];
            if (c == QLatin1Char('\\')) {
                if (i + 1 >= text.size()) {
                    *error = QStringLiteral("dangling backslash");
                    return false;
                }
                const QChar e = text[i + 1];
                if (e == QLatin1Char('\\'))
                    value += QLatin1Char('\\');
                else if (e == QLatin1Char('"'))
                    value += QLatin1Char('"');
                else if (e == QLatin1Char('n'))
                    value += QLatin1Char('\n');
                else {
                    *error = QStringLiteral("bad escape '\\%1' in label '%2'").arg(e).arg(name);
                    return false;
                }
                i += 2;
                continue;
            }
            if (c == QLatin1Char('"')) {
                closed = true;
                ++i;
                break;
            }
            if (c == QLatin1Char('\n')) {
                *error = QStringLiteral("raw newline in label value");
                return false;
            }
            value += c;
            ++i;
        }
        if (!closed) {
            *error = QStringLiteral("unterminated label value of '%1'").arg(name);
            return false;
        }
        labels->insert(name, value);
        if (i < text.size() && text[i] == QLatin1Char(','))
            ++i;
        else if (i < text.size() && text[i] != QLatin1Char('}')) {
            *error = QStringLiteral("expected ',' or '}' after label '%1'").arg(name);
            return false;
        }
    }
}

struct HistogramSeries {
    std::vector<std::pair<double, double>> buckets; // le, count, in line order
    bool hasSum = false;
    bool hasCount = false;
    double count = 0;
    int line = 0;
};

} // namespace

QString PrometheusTextChecker::key(const QString &name, QMap<QString, QString> labels)
{
    QStringList parts;
    for (auto it = labels.cbegin(); it != labels.cend(); ++it)
        parts << QStringLiteral("%1=\"%2\"").arg(it.key(), it.value());
    return parts.isEmpty() ? name : QStringLiteral("%1{%2}").arg(name, parts.join(QLatin1Char(',')));
}

QStringList PrometheusTextChecker::check(const QByteArray &bytes)
{
    QStringList errors;
    m_samples.clear();
    m_types.clear();
    if (!bytes.isEmpty() && !bytes.endsWith('\n'))
        errors << QStringLiteral("the text must end with a newline");
    const QStringList lines = QString::fromUtf8(bytes).split(QLatin1Char('\n'));
    QSet<QString> helped;
    QSet<QString> finishedFamilies; // families whose samples ended (another family began)
    QString currentFamily;
    QSet<QString> seriesSeen;
    std::map<QString, std::map<QString, HistogramSeries>> histograms; // family → label key without le → series

    auto familyOf = [&](const QString &sample) -> QString {
        if (m_types.contains(sample))
            return sample;
        for (const char *suffix : {"_bucket", "_sum", "_count"}) {
            if (sample.endsWith(QLatin1String(suffix))) {
                const QString base = sample.left(sample.size() - int(qstrlen(suffix)));
                if (m_types.value(base) == QLatin1String("histogram"))
                    return base;
            }
        }
        return {};
    };

    for (int n = 0; n < lines.size(); ++n) {
        const QString &line = lines[n];
        const int lineNo = n + 1;
        auto fail = [&](const QString &message) { errors << QStringLiteral("line %1: %2: %3").arg(lineNo).arg(message, line.left(120)); };
        if (line.isEmpty())
            continue;
        if (line.startsWith(QLatin1Char('#'))) {
            const QStringList parts = line.split(QLatin1Char(' '));
            if (parts.size() >= 3 && (parts[1] == QLatin1String("HELP") || parts[1] == QLatin1String("TYPE"))) {
                const QString name = parts[2];
                if (!metricName.match(name).hasMatch())
                    fail(QStringLiteral("bad metric name in %1").arg(parts[1]));
                if (finishedFamilies.contains(name))
                    fail(QStringLiteral("%1 for a family that was already written").arg(parts[1]));
                if (parts[1] == QLatin1String("HELP")) {
                    if (helped.contains(name))
                        fail(QStringLiteral("second HELP"));
                    helped.insert(name);
                    const QString help = line.section(QLatin1Char(' '), 3);
                    for (int i = 0; i < help.size(); ++i) {
                        if (help[i] != QLatin1Char('\\'))
                            continue;
                        if (i + 1 >= help.size() || (help[i + 1] != QLatin1Char('\\') && help[i + 1] != QLatin1Char('n')))
                            fail(QStringLiteral("bad escape in HELP"));
                        ++i; // the escaped character
                    }
                } else {
                    if (parts.size() != 4)
                        fail(QStringLiteral("TYPE needs exactly a name and a type"));
                    const QString type = parts.value(3);
                    if (!QStringList{"counter", "gauge", "histogram", "summary", "untyped"}.contains(type))
                        fail(QStringLiteral("unknown type '%1'").arg(type));
                    if (m_types.contains(name))
                        fail(QStringLiteral("second TYPE"));
                    m_types.insert(name, type);
                }
                if (currentFamily != name) {
                    if (!currentFamily.isEmpty())
                        finishedFamilies.insert(currentFamily);
                    currentFamily = name;
                }
            }
            continue;
        }
        // A sample: name[{labels}] value [timestamp]
        int pos = 0;
        while (pos < line.size() && line[pos] != QLatin1Char('{') && line[pos] != QLatin1Char(' '))
            ++pos;
        const QString name = line.left(pos);
        if (!metricName.match(name).hasMatch()) {
            fail(QStringLiteral("bad metric name"));
            continue;
        }
        QMap<QString, QString> labels;
        if (pos < line.size() && line[pos] == QLatin1Char('{')) {
            QString error;
            if (!parseLabels(line, &pos, &labels, &error)) {
                fail(error);
                continue;
            }
        }
        if (pos >= line.size() || line[pos] != QLatin1Char(' ')) {
            fail(QStringLiteral("no space before the value"));
            continue;
        }
        const QStringList rest = line.mid(pos + 1).split(QLatin1Char(' '));
        double value = 0;
        if (rest.isEmpty() || rest.size() > 2 || !parseValue(rest[0], &value)) {
            fail(QStringLiteral("bad value"));
            continue;
        }
        if (rest.size() == 2) {
            bool ok = false;
            rest[1].toLongLong(&ok);
            if (!ok)
                fail(QStringLiteral("bad timestamp"));
        }
        const QString family = familyOf(name);
        if (family.isEmpty()) {
            fail(QStringLiteral("sample before its TYPE line"));
            continue;
        }
        if (family != currentFamily) {
            fail(QStringLiteral("sample of %1 outside its family's block").arg(family));
            continue;
        }
        const QString type = m_types.value(family);
        const QString seriesKey = key(name, labels);
        if (seriesSeen.contains(seriesKey))
            fail(QStringLiteral("series written twice"));
        seriesSeen.insert(seriesKey);
        m_samples.insert(seriesKey, value);
        if (type == QLatin1String("counter")) {
            if (!family.endsWith(QLatin1String("_total")))
                fail(QStringLiteral("counter family not named _total"));
            if (!(value >= 0))
                fail(QStringLiteral("counter below zero or NaN"));
        }
        if (type == QLatin1String("histogram")) {
            if (name == family) {
                fail(QStringLiteral("histogram sample without _bucket/_sum/_count"));
                continue;
            }
            QMap<QString, QString> base = labels;
            const bool bucket = name.endsWith(QLatin1String("_bucket"));
            if (bucket != labels.contains(QStringLiteral("le")))
                fail(bucket ? QStringLiteral("bucket without le") : QStringLiteral("le on a non-bucket sample"));
            const QString le = base.take(QStringLiteral("le"));
            HistogramSeries &series = histograms[family][key(family, base)];
            series.line = lineNo;
            if (bucket) {
                double bound = 0;
                if (!parseValue(le, &bound))
                    fail(QStringLiteral("le is not a number"));
                if (series.hasSum || series.hasCount)
                    fail(QStringLiteral("bucket after _sum/_count"));
                series.buckets.emplace_back(bound, value);
            } else if (name.endsWith(QLatin1String("_sum"))) {
                series.hasSum = true;
            } else {
                series.hasCount = true;
                series.count = value;
            }
        }
    }
    for (const auto &[family, seriesMap] : histograms) {
        for (const auto &[labelText, s] : seriesMap) {
            const QString &labels = labelText; // clang before 16 cannot capture a structured binding
            auto fail = [&](const QString &message) { errors << QStringLiteral("histogram %1: %2").arg(labels, message); };
            if (s.buckets.empty() || !s.hasSum || !s.hasCount) {
                fail(QStringLiteral("needs buckets, _sum and _count"));
                continue;
            }
            for (std::size_t i = 1; i < s.buckets.size(); ++i) {
                if (!(s.buckets[i].first > s.buckets[i - 1].first))
                    fail(QStringLiteral("le not ascending"));
                if (s.buckets[i].second < s.buckets[i - 1].second)
                    fail(QStringLiteral("buckets not cumulative"));
            }
            if (!std::isinf(s.buckets.back().first))
                fail(QStringLiteral("last bucket is not le=\"+Inf\""));
            else if (s.buckets.back().second != s.count)
                fail(QStringLiteral("+Inf bucket %1 differs from _count %2").arg(s.buckets.back().second).arg(s.count));
        }
    }
    return errors;
}
