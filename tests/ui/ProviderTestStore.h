#pragma once

// A real configuration store on a real SQLite file in a temporary directory, seeded with a small
// configuration, for the Providers page and dialog tests. reload() reads the file back through a
// fresh repository, the way the next start of the application would.

#include "FakeClock.h"
#include "store/ConfigRepository.h"
#include "store/ConfigStore.h"
#include "store/DatabaseSecretStore.h"

#include <QAbstractItemModel>
#include <QLabel>
#include <QLineEdit>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QWidget>

#include <memory>

namespace sb::test {

inline const QString OpenAiKey1 = QStringLiteral("sk-openai-first-key-0001AAAA");
inline const QString OpenAiKey2 = QStringLiteral("sk-openai-second-key-0002BBBB");
inline const QString AnthropicKey = QStringLiteral("sk-ant-api03-only-key-0003CCCC");

inline EngineConfig sampleProviders()
{
    using namespace std::chrono_literals;
    EngineConfig c;
    ProviderConfig openai;
    openai.id = 1;
    openai.name = QStringLiteral("openai-main");
    openai.dialect = QStringLiteral("openai_compat");
    openai.baseUrl = QStringLiteral("https://api.openai.com/v1");
    openai.requestsPerMinute = 3000;
    openai.tokensPerMinute = 1000000;
    openai.burst = 50;
    openai.domain.account = QStringLiteral("acct-1");
    openai.domain.region = QStringLiteral("us-east");
    openai.keys = {ApiKeyConfig{1, QStringLiteral("team key"), OpenAiKey1, true, {}},
                   ApiKeyConfig{2, QStringLiteral("backup"), OpenAiKey2, true, {}}};
    ProviderConfig anthropic;
    anthropic.id = 2;
    anthropic.name = QStringLiteral("anthropic-backup");
    anthropic.dialect = QStringLiteral("anthropic");
    anthropic.baseUrl = QStringLiteral("https://api.anthropic.com/v1");
    anthropic.primaryTimeout = 45s;
    anthropic.domain.account = QStringLiteral("acct-2");
    anthropic.domain.region = QStringLiteral("eu-west");
    anthropic.keys = {ApiKeyConfig{3, QStringLiteral("ops"), AnthropicKey, true, {}}};
    c.providers = {openai, anthropic};

    auto channel = [](int id, const char *name, int provider, const char *model) {
        ChannelConfig ch;
        ch.id = id;
        ch.name = QString::fromUtf8(name);
        ch.providerId = provider;
        ch.upstreamModel = QString::fromUtf8(model);
        return ch;
    };
    c.channels = {channel(1, "gpt-4o/A", 1, "gpt-4o-2024-08-06"), channel(2, "gpt-4o/B", 2, "claude-3-5-sonnet-latest"),
                  channel(3, "gpt-4o/C", 1, "gpt-4o"), channel(4, "mini/A", 1, "gpt-4o-mini")};
    RouteConfig gpt4o;
    gpt4o.id = 1;
    gpt4o.logicalModel = QStringLiteral("gpt-4o");
    gpt4o.channelIds = {1, 2, 3};
    gpt4o.fallbackModels = {QStringLiteral("gpt-4o-mini")};
    RouteConfig mini;
    mini.id = 2;
    mini.logicalModel = QStringLiteral("gpt-4o-mini");
    mini.strategy = RoutingStrategy::Priority;
    mini.channelIds = {4};
    RouteConfig claude;
    claude.id = 3;
    claude.logicalModel = QStringLiteral("claude");
    claude.channelIds = {2};
    c.routes = {gpt4o, mini, claude};
    return c;
}

struct TestStore {
    QTemporaryDir dir;
    QString path = dir.filePath(QStringLiteral("switchboard.db"));
    FakeClock clock;
    DatabaseSecretStore secrets{path};
    ConfigRepository repository{path, secrets, clock};
    ConfigStore store{repository};

    explicit TestStore(const EngineConfig &initial = sampleProviders())
    {
        QString error;
        if (!secrets.open(&error) || !repository.open(&error))
            qFatal("cannot open the test database: %s", qPrintable(error));
        const auto saved = store.save(initial, QStringLiteral("test fixture"));
        if (!saved.ok())
            qFatal("cannot save the fixture: %s", qPrintable(saved.errors.join(QLatin1Char(' '))));
    }

    // What a fresh start would load from the file.
    EngineConfigPtr reload()
    {
        ConfigRepository again(path, secrets, clock);
        QString error;
        if (!again.open(&error))
            return nullptr;
        return again.load(&error);
    }
};

// Every piece of text a person could read in `root` and its children: labels, line edits (their
// text and placeholders), window titles, tool tips and the cells of every model a view shows.
inline QString visibleText(const QWidget *root)
{
    QString out = root->windowTitle() + QLatin1Char('\n');
    QList<const QWidget *> widgets{root};
    for (const QWidget *w : root->findChildren<QWidget *>())
        widgets << w;
    for (const QWidget *w : widgets) {
        out += w->toolTip() + QLatin1Char('\n');
        if (auto *label = qobject_cast<const QLabel *>(w))
            out += label->text() + QLatin1Char('\n');
        if (auto *edit = qobject_cast<const QLineEdit *>(w))
            out += edit->text() + QLatin1Char('|') + edit->displayText() + QLatin1Char('|') + edit->placeholderText() + QLatin1Char('\n');
    }
    for (const QAbstractItemModel *model : root->findChildren<QAbstractItemModel *>())
        for (int r = 0; r < model->rowCount(); ++r)
            for (int c = 0; c < model->columnCount(); ++c)
                for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(Qt::EditRole)})
                    out += model->index(r, c).data(role).toString() + QLatin1Char('\n');
    return out;
}

// A provider stand-in for "Test connection": answers every request on 127.0.0.1 with one canned
// HTTP response and keeps what it received.
class CannedHttpServer : public QObject {
public:
    CannedHttpServer(int status, const QByteArray &body)
    {
        m_response = "HTTP/1.1 " + QByteArray::number(status) + " X\r\nContent-Type: application/json\r\nContent-Length: "
                     + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                QObject::connect(socket, &QTcpSocket::readyRead, this, [this, socket] {
                    m_received += socket->readAll();
                    if (m_received.contains("\r\n\r\n")) {
                        socket->write(m_response);
                        socket->disconnectFromHost();
                    }
                });
            }
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }
    QString baseUrl() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(m_server.serverPort()); }
    QByteArray received() const { return m_received; }

private:
    QTcpServer m_server;
    QByteArray m_response;
    QByteArray m_received;
};

} // namespace sb::test
