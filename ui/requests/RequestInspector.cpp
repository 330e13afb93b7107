#include "requests/RequestInspector.h"

#include "ConsoleStyle.h"
#include "requests/RequestFormat.h"

namespace sb {

namespace {

QString esc(const QString &text)
{
    return RequestFormat::redact(text).toHtmlEscaped();
}

QString row(const QString &label, const QString &value)
{
    return QStringLiteral("<tr><td style=\"color:#888; padding-right:12px\">%1</td><td>%2</td></tr>")
        .arg(label.toHtmlEscaped(), value);
}

QString ms(int value)
{
    return value >= 0 ? formatMs(value).toHtmlEscaped() : QStringLiteral("—");
}

// When the attempt started, after the request arrived.
QString startOffset(qint64 ms)
{
    return ms <= 0 ? QStringLiteral("+0 ms") : QStringLiteral("+") + formatMs(double(ms)).toHtmlEscaped();
}

// Why the engine left this attempt for the next one, in the words an operator uses. A success
// may say more (a continuation says where it took over the answer).
QString whyFailedOver(const AttemptRecord &a, bool last)
{
    QString why;
    if (a.outcome == OutcomeKind::Success) {
        why = last ? QObject::tr("answered") : QObject::tr("succeeded");
    } else {
        why = RequestFormat::outcome(a.outcome);
        if (a.httpStatus > 0)
            why += QStringLiteral(" (HTTP %1)").arg(a.httpStatus);
        if (a.phase == OutcomePhase::MidStream)
            why += last ? QObject::tr(", after the first byte: the stream ended with an error event")
                        : QObject::tr(", after the first byte: the next attempt continued the answer");
    }
    if (!a.message.isEmpty())
        why += QStringLiteral(": ") + RequestFormat::redact(a.message);
    return why;
}

} // namespace

RequestInspector::RequestInspector(QWidget *parent) : QTextBrowser(parent)
{
    setObjectName(QStringLiteral("requestInspector"));
    setOpenLinks(false);
    setFrameShape(QFrame::NoFrame);
    clearRequest();
}

void RequestInspector::clearRequest()
{
    m_rowId = 0;
    setHtml(tr("<p style=\"color:gray\">Select a request to see its attempts.</p>"));
}

void RequestInspector::showRequest(const RequestRecord &record)
{
    m_rowId = record.id;
    setHtml(html(record));
}

QString RequestInspector::html(const RequestRecord &r)
{
    QString out;
    out += QStringLiteral("<h3 style=\"margin:0\">%1 · %2</h3>").arg(esc(r.logicalModel), esc(RequestFormat::status(r)));
    out += QStringLiteral("<table cellspacing=\"2\">");
    out += row(tr("Time"), esc(RequestFormat::dateTime(r.timeMs)));
    out += row(tr("Asked in"), esc(RequestFormat::clientApi(r.clientApi)));
    out += row(tr("Answered by"), r.channelName.isEmpty() ? tr("no channel") : esc(r.channelName));
    out += row(tr("Client got"), r.httpStatus > 0 ? QStringLiteral("HTTP %1").arg(r.httpStatus) : QStringLiteral("—"));
    out += row(tr("TTFT"), ms(r.ttftMs));
    out += row(tr("Latency"), ms(r.latencyMs));
    out += row(tr("Tokens"), tr("%1 in · %2 out").arg(formatCount(std::uint64_t(std::max(0, r.inputTokens))),
                                                      formatCount(std::uint64_t(std::max(0, r.outputTokens)))));
    if (r.cacheReadTokens > 0 || r.cacheWriteTokens > 0) // parts of "in", priced apart
        out += row(tr("Prompt cache"), tr("%1 read · %2 written").arg(formatCount(std::uint64_t(r.cacheReadTokens)),
                                                                      formatCount(std::uint64_t(std::max(0, r.cacheWriteTokens)))));
    out += row(tr("Cost"), esc(RequestFormat::cost(r.costUsd)));
    out += row(tr("Mode"), (r.streamed ? tr("stream") : tr("single answer")) + (r.cacheHit ? tr(" · cache hit") : QString()));
    if (!r.error.isEmpty())
        out += row(tr("Error"), QStringLiteral("<span style=\"color:%1\">%2</span>").arg(stateColor(ChannelState::Open).name(), esc(r.error)));
    out += QStringLiteral("</table>");

    out += QStringLiteral("<h4 style=\"margin-bottom:2px\">%1</h4>").arg(tr("Attempts (%1)").arg(r.attempts.size()));
    if (r.attempts.empty()) {
        out += tr("<p>None: answered locally (cache) or refused before routing.</p>");
    } else {
        // The outcome gets a line of its own under each attempt: as a seventh column it squeezed
        // every cell of a narrow inspector into several lines ("gpt-4o/" over "A").
        out += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\" border=\"0\" width=\"100%\">"
                              "<tr style=\"font-weight:600\"><td>#</td><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>")
                   .arg(tr("Channel"), tr("Key"), tr("Started"), tr("Time spent"), tr("TTFT"));
        for (std::size_t i = 0; i < r.attempts.size(); ++i) {
            const AttemptRecord &a = r.attempts[i];
            const bool ok = a.outcome == OutcomeKind::Success;
            const QString colour = ok ? stateColor(ChannelState::Closed).name() : stateColor(ChannelState::Open).name();
            out += QStringLiteral("<tr><td>%1</td><td><span style=\"color:%2\">■</span>&nbsp;%3</td><td>%4</td><td>%5</td><td>%6</td>"
                                  "<td>%7</td></tr>")
                       .arg(i + 1)
                       .arg(channelColor(a.channelId).name(), esc(a.channelName.isEmpty() ? QStringLiteral("#%1").arg(a.channelId) : a.channelName),
                            a.keyId > 0 ? tr("key&nbsp;#%1").arg(a.keyId) : tr("none"))
                       .arg(startOffset(a.startedMs - r.timeMs), ms(a.latencyMs), ms(a.ttftMs));
            out += QStringLiteral("<tr><td></td><td colspan=\"5\" style=\"padding-bottom:6px\"><span style=\"color:%1\">%2</span></td></tr>")
                       .arg(colour, whyFailedOver(a, i + 1 == r.attempts.size()).toHtmlEscaped());
        }
        out += QStringLiteral("</table>");
    }

    out += QStringLiteral("<h4 style=\"margin-bottom:2px\">%1</h4>").arg(tr("Headers"));
    out += QStringLiteral("<table cellspacing=\"2\">");
    out += row(QStringLiteral("x-request-id"), esc(r.requestId));
    out += row(QStringLiteral("authorization"), tr("(redacted: keys are never stored with a request)"));
    out += QStringLiteral("</table>");
    out += tr("<p style=\"color:gray\">The history keeps the request id, not the full request or answer headers; "
              "keys are shown only by their number (see Providers).</p>");
    return out;
}

} // namespace sb
