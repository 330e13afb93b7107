#pragma once

#include "model/EngineConfig.h"

#include <QAbstractTableModel>

#include <vector>

namespace sb {

// What the Providers page's configuration tables (providers, channels, routes) have in common: one
// row per entry of the saved configuration, in its order, addressed by the entry's id. A saved
// configuration replaces the rows in place when the same ids remain (so selection survives an
// edit) and resets the model otherwise. A table says only what its cells and titles are.
class ConfigTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum BaseRole { IdRole = Qt::UserRole + 1 }; // the row's entry id, in every column

    void setConfig(EngineConfigPtr config);

    int rowCount(const QModelIndex &parent = {}) const final;
    int columnCount(const QModelIndex &parent = {}) const final;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const final;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const final;

    int idAt(int row) const; // 0 outside the rows
    int rowOf(int id) const; // -1 when no row has the id

protected:
    ConfigTableModel(int columnCount, QObject *parent);

    // Set whenever there are rows.
    const EngineConfigPtr &config() const { return m_config; }

    // The ids of `config`'s entries this table shows, in order (idsOf() the list).
    virtual std::vector<int> rowIds(const EngineConfig &config) const = 0;
    template <typename Entry>
    static std::vector<int> idsOf(const std::vector<Entry> &entries);
    // A cell of one of the rows, for any role but IdRole.
    virtual QVariant cellData(int row, int column, int role) const = 0;
    // The horizontal header's text.
    virtual QVariant columnTitle(int column) const = 0;

private:
    EngineConfigPtr m_config;
    std::vector<int> m_ids; // rowIds(*m_config), so neither a row count nor a lookup walks the config
    int m_columnCount = 0;
};

template <typename Entry>
std::vector<int> ConfigTableModel::idsOf(const std::vector<Entry> &entries)
{
    std::vector<int> ids;
    ids.reserve(entries.size());
    for (const Entry &entry : entries)
        ids.push_back(entry.id);
    return ids;
}

} // namespace sb
