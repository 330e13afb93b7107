#pragma once

#include "model/RouteConfig.h"

#include <QDialog>

#include <memory>

namespace Ui {
class ChannelDialog;
}

namespace sb {

class ConfigStore;

// Add or edit one channel: which provider, the model name that provider knows, its weight and the
// failure-domain labels that override the provider's (one provider, two regions). Inline
// validation; Save goes through ConfigStore::save.
class ChannelDialog : public QDialog {
    Q_OBJECT
public:
    // channelId 0: a new channel, on `providerId` when given.
    ChannelDialog(ConfigStore &store, int channelId, QWidget *parent = nullptr, int providerId = 0);
    ~ChannelDialog() override;

    ChannelConfig channel() const;
    QStringList problems() const { return m_problems; }
    bool save();

signals:
    void saved(int channelId);

private:
    void validate();
    void suggestName();
    void showProviderDomain();

    std::unique_ptr<Ui::ChannelDialog> m_ui;
    ConfigStore &m_store;
    int m_channelId = 0;
    bool m_nameEdited = false;
    QStringList m_problems;
};

} // namespace sb
