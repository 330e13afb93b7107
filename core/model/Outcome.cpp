#include "model/Outcome.h"

namespace sb {

bool Outcome::isRetryable() const
{
    switch (kind) {
    case OutcomeKind::RetryableRateLimit:
    case OutcomeKind::ProviderDown:
    case OutcomeKind::AuthError: // another key or provider may work
    case OutcomeKind::Timeout:
    case OutcomeKind::ConnectFailed:
        return true;
    case OutcomeKind::Success:
    case OutcomeKind::NonRetryableParamError:
        return false;
    }
    return false;
}

bool Outcome::isChannelFailure() const
{
    // A rate limit says the key or provider is busy, not that the channel is broken; an auth error
    // is the key's fault; a parameter error is the caller's. Counting those would eject healthy
    // channels during a caller's bug or a quota squeeze.
    switch (kind) {
    case OutcomeKind::ProviderDown:
    case OutcomeKind::Timeout:
    case OutcomeKind::ConnectFailed:
        return true;
    default:
        return false;
    }
}

const char *toString(OutcomeKind kind)
{
    switch (kind) {
    case OutcomeKind::Success: return "SUCCESS";
    case OutcomeKind::RetryableRateLimit: return "RETRYABLE_RATE_LIMIT";
    case OutcomeKind::NonRetryableParamError: return "NON_RETRYABLE_PARAM_ERROR";
    case OutcomeKind::ProviderDown: return "PROVIDER_DOWN";
    case OutcomeKind::AuthError: return "AUTH_ERROR";
    case OutcomeKind::Timeout: return "TIMEOUT";
    case OutcomeKind::ConnectFailed: return "CONNECT_FAILED";
    }
    return "UNKNOWN";
}

std::optional<OutcomeKind> outcomeKindFromString(QStringView text)
{
    for (int i = 0; i < OutcomeKindCount; ++i) {
        const auto kind = static_cast<OutcomeKind>(i);
        if (text.compare(QLatin1String(toString(kind)), Qt::CaseInsensitive) == 0)
            return kind;
    }
    return std::nullopt;
}

const char *toString(OutcomeOrigin origin)
{
    return origin == OutcomeOrigin::Local ? "local" : "upstream";
}

const char *toString(OutcomePhase phase)
{
    return phase == OutcomePhase::MidStream ? "mid_stream" : "before_first_byte";
}

const char *toString(Misconfiguration cause)
{
    switch (cause) {
    case Misconfiguration::None: return "none";
    case Misconfiguration::EndpointNotFound: return "endpoint_not_found";
    case Misconfiguration::NameNotResolved: return "name_not_resolved";
    case Misconfiguration::TlsFailed: return "tls_failed";
    case Misconfiguration::KeysRefused: return "keys_refused";
    }
    return "none";
}

} // namespace sb
