#pragma once

#include <QObject>
#include <QString>

namespace sb {

// The Channels page's actions (eject, re-admit, probe) on whichever engine the console shows: the
// embedded Gateway or an attached instance. The seam exists because the two answer differently —
// the embedded Router acts at once, a remote instance answers over HTTP later — and MainWindow
// should not care which: it asks, and shows what `finished` says in the status bar.
class ChannelActions : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    virtual void eject(int channelId) = 0;
    virtual void readmit(int channelId) = 0;
    virtual void probe(int channelId) = 0;

signals:
    // One per action, with a sentence for the status bar ("Eject channel 1 on http://…: done.").
    void finished(bool ok, const QString &message);
};

} // namespace sb
