#include "providers/PriceTableModel.h"

#include "providers/UsdAmount.h"
#include "routing/CostMeter.h"

#include <QColor>
#include <QLocale>

namespace sb {

namespace {

// An unset cache price is an empty cell; a set one, even 0 (free), is its number.
QString cacheEditText(double usdPerM)
{
    if (!ModelPrice::isSet(usdPerM))
        return QString();
    return usdPerM == 0.0 ? QStringLiteral("0") : UsdAmount::editText(usdPerM);
}

QString columnWord(int column)
{
    switch (column) {
    case PriceTableModel::Input: return PriceTableModel::tr("input price");
    case PriceTableModel::CachedInput: return PriceTableModel::tr("cached input price");
    case PriceTableModel::CacheWrite: return PriceTableModel::tr("cache write price");
    default: return PriceTableModel::tr("output price");
    }
}

} // namespace

PriceTableModel::PriceTableModel(QObject *parent) : QAbstractTableModel(parent) {}

QString *PriceTableModel::field(Row &row, int column)
{
    switch (column) {
    case Model: return &row.model;
    case Input: return &row.input;
    case CachedInput: return &row.cachedInput;
    case CacheWrite: return &row.cacheWrite;
    case Output: return &row.output;
    default: return nullptr;
    }
}

const QString &PriceTableModel::text(const Row &row, int column)
{
    static const QString none;
    switch (column) {
    case Model: return row.model;
    case Input: return row.input;
    case CachedInput: return row.cachedInput;
    case CacheWrite: return row.cacheWrite;
    case Output: return row.output;
    default: return none;
    }
}

void PriceTableModel::reset(const EngineConfigPtr &config)
{
    beginResetModel();
    m_config = config;
    m_rows.clear();
    if (config)
        for (const ModelPrice &p : config->prices)
            m_rows.push_back({p.model, UsdAmount::editText(p.inputUsdPerM), cacheEditText(p.cachedInputUsdPerM),
                              cacheEditText(p.cacheWriteUsdPerM), UsdAmount::editText(p.outputUsdPerM)});
    m_dirty = false;
    endResetModel();
    emit draftChanged();
}

void PriceTableModel::setConfig(const EngineConfigPtr &config)
{
    m_config = config;
    if (rowCount() > 0)
        emit dataChanged(index(0, UsedBy), index(rowCount() - 1, UsedBy));
}

int PriceTableModel::addRow()
{
    const int row = rowCount();
    beginInsertRows({}, row, row);
    m_rows.push_back({});
    endInsertRows();
    m_dirty = true;
    emit draftChanged();
    return row;
}

void PriceTableModel::removeAt(int row)
{
    if (row < 0 || row >= rowCount())
        return;
    beginRemoveRows({}, row, row);
    m_rows.erase(m_rows.begin() + row);
    endRemoveRows();
    m_dirty = true;
    // A removed duplicate can clear the problem of the row it repeated.
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    emit draftChanged();
}

QString PriceTableModel::cellProblem(int row, int column) const
{
    const Row &r = m_rows[std::size_t(row)];
    if (column == Model) {
        const QString model = r.model.trimmed();
        if (model.isEmpty())
            return tr("Row %1: enter the model name as a channel names it, e.g. gpt-4o-mini.").arg(row + 1);
        for (int other = 0; other < row; ++other)
            if (m_rows[std::size_t(other)].model.trimmed() == model)
                return tr("Row %1: “%2” is already priced in row %3; remove one of them.").arg(row + 1).arg(model).arg(other + 1);
        return {};
    }
    if (!isPrice(column))
        return {};
    const QString what = columnWord(column);
    double value = 0;
    switch (UsdAmount::parse(text(r, column), &value)) {
    case UsdAmount::Parse::Ok: return {};
    case UsdAmount::Parse::Empty:
        if (isOptional(column))
            return {}; // unset: billed at the input price
        return tr("Row %1: enter the %2 in US dollars per 1M tokens (0 if it is free).").arg(row + 1).arg(what);
    case UsdAmount::Parse::NotANumber: return tr("Row %1: the %2 must be a number of US dollars, e.g. 2.50.").arg(row + 1).arg(what);
    case UsdAmount::Parse::Negative: return tr("Row %1: the %2 cannot be negative.").arg(row + 1).arg(what);
    }
    return {};
}

QStringList PriceTableModel::problems() const
{
    QStringList out;
    for (int row = 0; row < rowCount(); ++row)
        for (int column : {Model, Input, CachedInput, CacheWrite, Output})
            if (const QString p = cellProblem(row, column); !p.isEmpty())
                out << p;
    return out;
}

std::vector<ModelPrice> PriceTableModel::prices() const
{
    std::vector<ModelPrice> out;
    for (const Row &r : m_rows) {
        ModelPrice p;
        p.model = r.model.trimmed();
        UsdAmount::parse(r.input, &p.inputUsdPerM);
        UsdAmount::parse(r.output, &p.outputUsdPerM);
        if (UsdAmount::parse(r.cachedInput, &p.cachedInputUsdPerM) != UsdAmount::Parse::Ok)
            p.cachedInputUsdPerM = ModelPrice::kUnsetPrice;
        if (UsdAmount::parse(r.cacheWrite, &p.cacheWriteUsdPerM) != UsdAmount::Parse::Ok)
            p.cacheWriteUsdPerM = ModelPrice::kUnsetPrice;
        out.push_back(p);
    }
    return out;
}

std::vector<ModelPrice> PriceTableModel::parseablePrices() const
{
    std::vector<ModelPrice> out;
    for (int row = 0; row < rowCount(); ++row)
        if (cellProblem(row, Model).isEmpty())
            out.push_back({m_rows[std::size_t(row)].model.trimmed(), 0.0, 0.0});
    return out;
}

QStringList PriceTableModel::unpricedChannels() const
{
    QStringList out;
    if (!m_config)
        return out;
    const std::vector<ModelPrice> priced = parseablePrices();
    for (const ChannelConfig &c : m_config->channels)
        if (!CostMeter::findPrice(priced, c.upstreamModel, QString()))
            out << QStringLiteral("%1 (%2)").arg(c.upstreamModel, c.name);
    return out;
}

int PriceTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int PriceTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PriceTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &r = m_rows[std::size_t(index.row())];
    const int column = index.column();
    if (role == ProblemRole)
        return cellProblem(index.row(), column);
    if (role == Qt::DisplayRole && isPrice(column)) {
        // A valid amount reads as money ("2.50", "0.075"); anything else stays as typed, beside its problem.
        const QString &typed = text(r, column);
        double value = 0;
        const UsdAmount::Parse parsed = UsdAmount::parse(typed, &value);
        if (parsed == UsdAmount::Parse::Empty && isOptional(column))
            return tr("as input");
        if (parsed != UsdAmount::Parse::Ok)
            return typed;
        QString text = QLocale().toString(value, 'f', 6);
        const QChar point = QLocale().decimalPoint().at(0);
        while (text.endsWith(QLatin1Char('0')) && text.indexOf(point) < text.size() - 3)
            text.chop(1);
        return text;
    }
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (column) {
        case Model:
        case Input:
        case CachedInput:
        case CacheWrite:
        case Output: return text(r, column);
        case UsedBy: {
            if (!m_config || !cellProblem(index.row(), Model).isEmpty())
                return role == Qt::DisplayRole ? QStringLiteral("—") : QVariant();
            // The same matching the engine prices requests with: exact, any case, dated versions.
            const std::vector<ModelPrice> priced = parseablePrices();
            QStringList channels;
            for (const ChannelConfig &c : m_config->channels) {
                const ModelPrice *p = CostMeter::findPrice(priced, c.upstreamModel, QString());
                if (p && p->model == r.model.trimmed())
                    channels << c.name;
            }
            return channels.isEmpty() ? tr("no channel yet") : channels.join(QStringLiteral(", "));
        }
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        const QString problem = cellProblem(index.row(), column);
        if (!problem.isEmpty())
            return problem;
        if (column == Input || column == Output)
            return tr("US dollars per 1 million %1 tokens").arg(column == Input ? tr("input (prompt)") : tr("output (completion)"));
        if (column == CachedInput)
            return tr("US dollars per 1 million prompt tokens read from the provider's prompt cache; empty: the input price");
        if (column == CacheWrite)
            return tr("US dollars per 1 million prompt tokens written to the provider's prompt cache; empty: the input price");
        if (column == UsedBy)
            return tr("Channels whose model takes this price (its exact name, any case, or a dated version of it)");
    }
    if (role == Qt::BackgroundRole && !cellProblem(index.row(), column).isEmpty())
        return QColor(0xc6, 0x28, 0x28, 60); // the open-circuit red, light enough to read the text through
    if (role == Qt::ForegroundRole && isOptional(column) && text(r, column).trimmed().isEmpty())
        return QColor(Qt::gray); // "as input" is a reminder, not a typed price
    if (role == Qt::TextAlignmentRole && isPrice(column))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

bool PriceTableModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || role != Qt::EditRole || index.row() >= rowCount())
        return false;
    Row &r = m_rows[std::size_t(index.row())];
    QString *cell = field(r, index.column());
    if (!cell)
        return false;
    const QString typed = value.toString();
    if (*cell == typed)
        return true;
    *cell = typed;
    m_dirty = true;
    // A model name change can make or clear a duplicate elsewhere, and moves channels between rows.
    emit dataChanged(this->index(0, 0), this->index(rowCount() - 1, ColumnCount - 1));
    emit draftChanged();
    return true;
}

Qt::ItemFlags PriceTableModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() != UsedBy)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant PriceTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Model: return tr("Model");
    case Input: return tr("Input $ / 1M");
    case CachedInput: return tr("Cache read $ / 1M");
    case CacheWrite: return tr("Cache write $ / 1M");
    case Output: return tr("Output $ / 1M");
    case UsedBy: return tr("Channels priced");
    default: return {};
    }
}

} // namespace sb
