#pragma once

#include "model/ProviderConfig.h"

#include <QAbstractTableModel>
#include <QHash>

#include <vector>

namespace sb {

// The provider dialog's keys. It holds the keys being edited (secrets included, since a new key's
// secret must reach ConfigStore::save) but only ever displays maskSecret() of them: no role returns
// a whole secret. New keys have id 0 until saved; rows are addressed by row.
class KeyTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Key, Label, Status, LastTest, ColumnCount };

    explicit KeyTableModel(QObject *parent = nullptr);

    void setKeys(std::vector<ApiKeyConfig> keys);
    const std::vector<ApiKeyConfig> &keys() const { return m_keys; }
    const ApiKeyConfig &keyAt(int row) const { return m_keys[std::size_t(row)]; }
    void addKey(const ApiKeyConfig &key);
    void replaceKey(int row, const ApiKeyConfig &key);
    void removeKey(int row);
    void setTestResult(int row, const QString &text);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<ApiKeyConfig> m_keys;
    std::vector<QString> m_lastTest;
};

} // namespace sb
