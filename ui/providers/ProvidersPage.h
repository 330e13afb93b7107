#pragma once

#include "control/MetricsSnapshot.h"
#include "model/EngineConfig.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace sb {

class ChannelConfigModel;
class ChannelDialog;
class ConfigStore;
class PriceEditor;
class ProviderDialog;
class ProviderTableModel;
class RouteDialog;
class RouteTableModel;

// The configuration screen: providers (dialect, URL, keys healthy/total), channels and routes, each
// with Add / Edit / Delete (double-click edits), and the price table edited in place. Every change
// is a dialog, a confirmed delete or Save prices, ending in ConfigStore::save, which the running
// engine applies live; the tables follow the store's configChanged, and the Keys column and each
// route's spend against its budget follow the engine's snapshots.
class ProvidersPage : public QWidget {
    Q_OBJECT
public:
    explicit ProvidersPage(QWidget *parent = nullptr);

    // Reads current() and follows configChanged. Without a store the page is read-only and empty.
    void setConfigStore(ConfigStore *store);

    ProviderTableModel *providerModel() const { return m_providers; }
    ChannelConfigModel *channelModel() const { return m_channels; }
    RouteTableModel *routeModel() const { return m_routes; }
    QTableView *providerView() const { return m_providerView; }
    QTableView *channelView() const { return m_channelView; }
    QTableView *routeView() const { return m_routeView; }
    PriceEditor *priceEditor() const { return m_prices; }

    // The dialogs open window-modal (open(), not exec()), so tests and the event loop keep running.
    ProviderDialog *openProviderDialog(int providerId);
    ChannelDialog *openChannelDialog(int channelId, int providerId = 0);
    RouteDialog *openRouteDialog(int routeId);

    // The confirmation a delete asks, naming what depends on the item.
    QString deleteProviderQuestion(int providerId) const;
    QString deleteChannelQuestion(int channelId) const;
    // Deletes without asking (the buttons ask first); false with the store's reason shown on the page.
    bool deleteProvider(int providerId);
    bool deleteChannel(int channelId);
    bool deleteRoute(int routeId);

    QString errorText() const; // the page's inline error line (tests)

public slots:
    void setConfig(sb::EngineConfigPtr config);
    void applySnapshot(const sb::MetricsSnapshot &snapshot);
    // "Open in Providers" from the Channels page: selects the provider's row.
    void showProvider(int providerId);

private:
    QTableView *makeTable(const QString &name);
    QWidget *makeSection(const QString &title, const QString &hint, QTableView *view, const QString &prefix,
                         QPushButton **add, QPushButton **edit, QPushButton **remove);
    int selectedId(QTableView *view, int role) const;
    bool saveEdit(const EngineConfig &config, const QString &reason);
    void updateButtons();
    void sizeColumns();

    QPointer<ConfigStore> m_store;
    ProviderTableModel *m_providers = nullptr;
    ChannelConfigModel *m_channels = nullptr;
    RouteTableModel *m_routes = nullptr;
    QTableView *m_providerView = nullptr;
    QTableView *m_channelView = nullptr;
    QTableView *m_routeView = nullptr;
    PriceEditor *m_prices = nullptr;
    QPushButton *m_addProvider = nullptr, *m_editProvider = nullptr, *m_deleteProvider = nullptr;
    QPushButton *m_addChannel = nullptr, *m_editChannel = nullptr, *m_deleteChannel = nullptr;
    QPushButton *m_addRoute = nullptr, *m_editRoute = nullptr, *m_deleteRoute = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_error = nullptr;
};

} // namespace sb
