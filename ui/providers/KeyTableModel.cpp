#include "providers/KeyTableModel.h"

#include "common/SecretMask.h"

#include <QColor>
#include <QDateTime>
#include <QLocale>

namespace sb {

KeyTableModel::KeyTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void KeyTableModel::setKeys(std::vector<ApiKeyConfig> keys)
{
    beginResetModel();
    m_keys = std::move(keys);
    m_lastTest.assign(m_keys.size(), QString());
    endResetModel();
}

void KeyTableModel::addKey(const ApiKeyConfig &key)
{
    const int row = rowCount();
    beginInsertRows({}, row, row);
    m_keys.push_back(key);
    m_lastTest.emplace_back();
    endInsertRows();
}

void KeyTableModel::replaceKey(int row, const ApiKeyConfig &key)
{
    if (row < 0 || row >= rowCount())
        return;
    m_keys[std::size_t(row)] = key;
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void KeyTableModel::removeKey(int row)
{
    if (row < 0 || row >= rowCount())
        return;
    beginRemoveRows({}, row, row);
    m_keys.erase(m_keys.begin() + row);
    m_lastTest.erase(m_lastTest.begin() + row);
    endRemoveRows();
}

void KeyTableModel::setTestResult(int row, const QString &text)
{
    if (row < 0 || row >= rowCount())
        return;
    m_lastTest[std::size_t(row)] = text;
    emit dataChanged(index(row, LastTest), index(row, LastTest));
}

int KeyTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_keys.size());
}

int KeyTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KeyTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const ApiKeyConfig &k = m_keys[std::size_t(index.row())];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Key: return k.secretUnreadable() ? tr("(unreadable)") : k.secret.isEmpty() ? tr("(stored)") : maskSecret(k.secret);
        case Label: return k.label.isEmpty() ? QStringLiteral("—") : k.label;
        case Status:
            if (!k.enabled)
                return k.disabledReason.isEmpty() ? tr("disabled") : tr("disabled: %1").arg(k.disabledReason);
            if (k.secretUnreadable())
                return tr("secret cannot be read: %1").arg(k.unreadableReason);
            if (k.refused())
                return tr("refused by the provider (%1): %2")
                    .arg(QLocale().toString(QDateTime::fromMSecsSinceEpoch(k.refusedAtMs), QStringLiteral("d MMM HH:mm")), k.refusedReason);
            return tr("enabled");
        case LastTest: return m_lastTest[std::size_t(index.row())];
        default: return {};
        }
    }
    if (role == Qt::ForegroundRole && index.column() == Status && k.enabled && (k.refused() || k.secretUnreadable()))
        return QColor(0xc6, 0x28, 0x28); // the open-circuit red: the provider says no, the user must act
    if (role == Qt::ForegroundRole && index.column() == Status && !k.enabled)
        return QColor(0x75, 0x75, 0x75); // the ejected grey: out of rotation
    if (role == Qt::ToolTipRole && index.column() == Status && k.enabled && k.secretUnreadable())
        return tr("Out of rotation: Switchboard sends nothing to this provider without a key. Make the keyring reachable "
                  "and start Switchboard again. %1").arg(k.unreadableReason);
    if (role == Qt::ToolTipRole && index.column() == Status && k.enabled && k.refused())
        return tr("Out of rotation until you paste a new key (Edit…) or choose Re-enable. The provider said: %1").arg(k.refusedReason);
    if (role == Qt::ToolTipRole && index.column() == Status && !k.enabled)
        return k.disabledReason;
    return {};
}

QVariant KeyTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Key: return tr("Key");
    case Label: return tr("Label");
    case Status: return tr("Status");
    case LastTest: return tr("Last test");
    default: return {};
    }
}

} // namespace sb
