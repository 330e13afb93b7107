#pragma once

#include "control/MetricsSnapshot.h"
#include "model/EngineConfig.h"

#include <QWidget>

class QLineEdit;
class QLabel;
class QMenu;
class QSortFilterProxyModel;
class QTableView;

namespace sb {

class ChannelTableModel;

// Every channel with its state, health and error rates, sortable and filterable; a row's context
// menu drains, re-admits or opens the channel's provider. The page never calls the engine: it asks,
// by signal, and MainWindow forwards to the Gateway.
class ChannelsPage : public QWidget {
    Q_OBJECT
public:
    explicit ChannelsPage(QWidget *parent = nullptr);

    void setConfig(EngineConfigPtr config);
    // "Open in Providers" needs the configuration store of the engine shown; an attached instance's
    // is on its own machine, so the menu item says that instead of opening the embedded one's.
    void setProvidersLinked(bool linked);
    ChannelTableModel *model() const { return m_model; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QTableView *view() const { return m_view; }
    QLineEdit *filterBox() const { return m_filter; }

    // The context menu for a row of the view (proxy row), built fresh so it reflects the current state.
    // The caller owns it.
    QMenu *contextMenuFor(int proxyRow, QWidget *parent);

public slots:
    void applySnapshot(const sb::MetricsSnapshot &snapshot);

signals:
    void drainRequested(int channelId);
    void readmitRequested(int channelId);
    void probeRequested(int channelId);
    void openProviderRequested(int providerId);

private:
    void updateEmptyState();

    ChannelTableModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_view = nullptr;
    QLineEdit *m_filter = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_empty = nullptr;
    QLabel *m_misconfigured = nullptr; // one line per misconfigured channel: what to fix
    bool m_columnsSized = false;
    bool m_providersLinked = true;
};

} // namespace sb
