#include "providers/TierListModel.h"

#include <QMimeData>

namespace sb {

namespace {

const QString RowMime = QStringLiteral("application/x-switchboard-tier-row");

} // namespace

TierListModel::TierListModel(QObject *parent) : QAbstractListModel(parent) {}

void TierListModel::setItems(std::vector<Item> items)
{
    beginResetModel();
    m_items = std::move(items);
    endResetModel();
}

void TierListModel::append(const Item &item)
{
    const int row = rowCount();
    beginInsertRows({}, row, row);
    m_items.push_back(item);
    endInsertRows();
}

void TierListModel::removeAt(int row)
{
    if (row < 0 || row >= rowCount())
        return;
    beginRemoveRows({}, row, row);
    m_items.erase(m_items.begin() + row);
    endRemoveRows();
}

bool TierListModel::contains(int id, const QString &text) const
{
    for (const Item &item : m_items)
        if (id != 0 ? item.id == id : item.text == text)
            return true;
    return false;
}

int TierListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_items.size());
}

QVariant TierListModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Item &item = m_items[std::size_t(index.row())];
    if (role == Qt::DisplayRole)
        return QStringLiteral("%1.  %2").arg(index.row() + 1).arg(item.text);
    if (role == IdRole)
        return item.id;
    if (role == Qt::EditRole)
        return item.text;
    return {};
}

Qt::ItemFlags TierListModel::flags(const QModelIndex &index) const
{
    const Qt::ItemFlags base = QAbstractListModel::flags(index);
    // Items drag; only the gaps between them accept drops (no dropping onto an item).
    return index.isValid() ? (base | Qt::ItemIsDragEnabled) & ~Qt::ItemIsDropEnabled : base | Qt::ItemIsDropEnabled;
}

bool TierListModel::moveRows(const QModelIndex &sourceParent, int sourceRow, int count,
                             const QModelIndex &destinationParent, int destinationChild)
{
    if (sourceParent.isValid() || destinationParent.isValid() || count != 1 || sourceRow < 0 || sourceRow >= rowCount()
        || destinationChild < 0 || destinationChild > rowCount())
        return false;
    if (destinationChild == sourceRow || destinationChild == sourceRow + 1)
        return false; // already there
    if (!beginMoveRows({}, sourceRow, sourceRow, {}, destinationChild))
        return false;
    Item item = m_items[std::size_t(sourceRow)];
    m_items.erase(m_items.begin() + sourceRow);
    const int insertAt = destinationChild > sourceRow ? destinationChild - 1 : destinationChild;
    m_items.insert(m_items.begin() + insertAt, item);
    endMoveRows();
    // The position numbers shown in front of every item changed.
    emit dataChanged(index(0), index(rowCount() - 1));
    return true;
}

Qt::DropActions TierListModel::supportedDropActions() const
{
    return Qt::MoveAction;
}

QStringList TierListModel::mimeTypes() const
{
    return {RowMime};
}

QMimeData *TierListModel::mimeData(const QModelIndexList &indexes) const
{
    if (indexes.isEmpty())
        return nullptr;
    auto *data = new QMimeData;
    data->setData(RowMime, QByteArray::number(indexes.first().row()));
    return data;
}

bool TierListModel::canDropMimeData(const QMimeData *data, Qt::DropAction action, int, int, const QModelIndex &) const
{
    return data && data->hasFormat(RowMime) && action == Qt::MoveAction;
}

bool TierListModel::dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int, const QModelIndex &parent)
{
    if (!canDropMimeData(data, action, row, 0, parent))
        return false;
    bool ok = false;
    const int source = data->data(RowMime).toInt(&ok);
    if (!ok)
        return false;
    int destination = row;
    if (destination < 0)
        destination = parent.isValid() ? parent.row() : rowCount(); // dropped on an item / below the last
    moveRows({}, source, 1, {}, destination);
    // The move is done here. Reporting the drop as not taken stops the view from also removing the
    // "moved-out" source row, as it would after an ordinary move between two models.
    return false;
}

} // namespace sb
