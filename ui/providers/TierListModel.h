#pragma once

#include <QAbstractListModel>
#include <QString>

#include <vector>

namespace sb {

// An ordered list for the route dialog's tier editor (the tier-0 channels, or the fallback models by
// priority). Order is the point, so it moves rows — by drag and drop in the view (which ends in
// moveRows) or by the dialog's up/down buttons — and never copies or drops them on the way.
class TierListModel : public QAbstractListModel {
    Q_OBJECT
public:
    struct Item {
        int id = 0;   // channel id; 0 for fallback models (the text is the key)
        QString text; // what the list shows
    };
    enum Role { IdRole = Qt::UserRole + 1 };

    explicit TierListModel(QObject *parent = nullptr);

    void setItems(std::vector<Item> items);
    const std::vector<Item> &items() const { return m_items; }
    void append(const Item &item);
    void removeAt(int row);
    bool contains(int id, const QString &text) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool moveRows(const QModelIndex &sourceParent, int sourceRow, int count, const QModelIndex &destinationParent,
                  int destinationChild) override;

    Qt::DropActions supportedDropActions() const override;
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;
    bool canDropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                         const QModelIndex &parent) const override;
    bool dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                      const QModelIndex &parent) override;

private:
    std::vector<Item> m_items;
};

} // namespace sb
