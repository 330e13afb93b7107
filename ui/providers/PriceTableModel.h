#pragma once

#include "model/EngineConfig.h"

#include <QAbstractTableModel>

#include <vector>

namespace sb {

// The price table as a draft the user edits in place: model, USD per 1M input tokens, per 1M
// prompt tokens read from and written to the provider's prompt cache, per 1M output tokens, and
// which channels each row prices. Cells keep the text as typed; problems() names every cell that
// would not save (not a number, negative, an empty or repeated model), and those cells are marked
// in the table, so the editor can disable Save and say why beside it. An empty cache price is
// allowed and means "the input price" (ModelPrice's unset).
class PriceTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Model, Input, CachedInput, CacheWrite, Output, UsedBy, ColumnCount };
    enum Role { ProblemRole = Qt::UserRole + 1 }; // the cell's problem, empty when it is fine

    explicit PriceTableModel(QObject *parent = nullptr);

    // The saved prices become the draft (dirty() turns false); `config` names the channels.
    void reset(const EngineConfigPtr &config);
    // A saved config while the user is editing: the draft stays, the channel names follow.
    void setConfig(const EngineConfigPtr &config);

    int addRow();                 // an empty row at the end; returns it
    void removeAt(int row);
    bool dirty() const { return m_dirty; }
    QStringList problems() const;
    std::vector<ModelPrice> prices() const; // meaningful when problems() is empty
    // Channels whose upstream model no row prices (their requests' cost stays unknown), as
    // "model (channel)".
    QStringList unpricedChannels() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void draftChanged(); // any edit, add, remove or reset

private:
    struct Row {
        QString model, input, cachedInput, cacheWrite, output; // as typed
    };
    static bool isPrice(int column) { return column == Input || column == CachedInput || column == CacheWrite || column == Output; }
    static bool isOptional(int column) { return column == CachedInput || column == CacheWrite; }
    static QString *field(Row &row, int column);
    static const QString &text(const Row &row, int column);
    QString cellProblem(int row, int column) const;
    std::vector<ModelPrice> parseablePrices() const; // the rows that parse, for "used by"

    EngineConfigPtr m_config;
    std::vector<Row> m_rows;
    bool m_dirty = false;
};

} // namespace sb
