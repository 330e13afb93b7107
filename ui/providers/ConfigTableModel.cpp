#include "providers/ConfigTableModel.h"

#include <algorithm>

namespace sb {

ConfigTableModel::ConfigTableModel(int columnCount, QObject *parent)
    : QAbstractTableModel(parent), m_columnCount(columnCount)
{
}

void ConfigTableModel::setConfig(EngineConfigPtr config)
{
    std::vector<int> ids = config ? rowIds(*config) : std::vector<int>();
    if (ids == m_ids) {
        m_config = std::move(config);
        if (rowCount() > 0)
            emit dataChanged(index(0, 0), index(rowCount() - 1, m_columnCount - 1));
        return;
    }
    beginResetModel();
    m_config = std::move(config);
    m_ids = std::move(ids);
    endResetModel();
}

int ConfigTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_ids.size());
}

int ConfigTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_columnCount;
}

int ConfigTableModel::idAt(int row) const
{
    return row < 0 || row >= rowCount() ? 0 : m_ids[std::size_t(row)];
}

int ConfigTableModel::rowOf(int id) const
{
    const auto it = std::find(m_ids.begin(), m_ids.end(), id);
    return it == m_ids.end() ? -1 : int(it - m_ids.begin());
}

QVariant ConfigTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    if (role == IdRole)
        return idAt(index.row());
    return cellData(index.row(), index.column(), role);
}

QVariant ConfigTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return columnTitle(section);
}

} // namespace sb
