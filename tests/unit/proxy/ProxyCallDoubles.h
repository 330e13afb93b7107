#pragma once

#include "common/Clock.h"
#include "model/ProviderConfig.h"
#include "net/ClientResponse.h"
#include "net/UpstreamTransport.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <vector>

namespace sb::test {

// What the scripted upstream answers with: one OpenAI chat answer, and a stream's pieces.
inline const QByteArray kAnswer = R"({"id":"c1","object":"chat.completion","created":1,"model":"m",)"
                           R"("choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],)"
                           R"("usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}})";
inline const QByteArray kChunk = R"(data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",)"
                          R"("choices":[{"index":0,"delta":{"content":"hel"},"finish_reason":null}]})"
                          "\n\n";
inline const QByteArray kLastChunk = R"(data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",)"
                              R"("choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})"
                              "\n\ndata: [DONE]\n\n";

// An OpenAI-compatible provider of its own account (so its channels are independent) with `keys`
// keys, at http://p<id>.test/v1.
ProviderConfig scriptedProvider(int id, int keys = 1);

// The upstream side of ProxyCall's tests: records every transfer a call starts and lets the test
// answer it (a status and body, a stream in pieces, a transport error) when it chooses.
class ScriptedUpstream final : public UpstreamTransport {
public:
    struct Transfer {
        quint64 id = 0;
        UpstreamRequest request;
        TransferOptions options;
        TransferCallbacks callbacks;
        Clock::TimePoint startedAt;
        bool cancelled = false;
        bool ended = false;
    };

    explicit ScriptedUpstream(const Clock &clock) : m_clock(clock) {}

    quint64 start(const UpstreamRequest &request, const TransferOptions &options, TransferCallbacks callbacks) override;
    void cancel(quint64 transferId) override;
    void pause(quint64) override { ++pauses; }
    void resume(quint64) override { ++resumes; }

    std::size_t count() const { return m_transfers.size(); }
    const Transfer &at(std::size_t i) const { return m_transfers.at(i); }
    const Transfer &last() const { return m_transfers.back(); }
    // The host of the transfer's URL ("p1.test"): which provider the attempt went to.
    QString hostOf(std::size_t i) const { return at(i).request.url.host(); }
    QByteArray keyOf(std::size_t i) const { return at(i).request.headers.value("authorization"); }

    // A whole answer: headers, the body in one piece, the end.
    void reply(std::size_t i, int status, const QByteArray &body, HttpHeaders headers = {});
    // An event stream: its 200 head, then pieces of it with data(), then end() or fail().
    void streamHead(std::size_t i);
    void data(std::size_t i, const QByteArray &bytes);
    void end(std::size_t i);
    void fail(std::size_t i, TransferError error, const QString &message);

    int pauses = 0;
    int resumes = 0;

private:
    Transfer &live(std::size_t i);

    const Clock &m_clock;
    std::vector<Transfer> m_transfers;
    quint64 m_nextId = 1;
};

// The client side: what the call sent back, as a client would read it.
class RecordingResponse final : public ClientResponse {
public:
    void send(int status, const HttpHeaders &headers, const QByteArray &body) override;
    void startStream(int status, const HttpHeaders &headers) override;
    void write(const QByteArray &bytes) override;
    void finish() override;
    bool isOpen() const override { return m_open; }
    void onClosed(std::function<void()> callback) override;
    qint64 bufferedBytes() const override { return 0; }
    void onDrained(qint64, std::function<void()>) override {}

    // The client goes away before the answer is complete.
    void clientLeaves();

    int status = 0;
    HttpHeaders headers;
    QByteArray body;
    bool streamed = false;
    bool finished = false;

private:
    bool m_open = true;
    std::vector<std::function<void()>> m_closed;
};

} // namespace sb::test
