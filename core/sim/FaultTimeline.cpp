#include "sim/FaultTimeline.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sb::sim {

FaultTimeline::FaultTimeline(std::vector<FaultSpec> faults) : m_faults(std::move(faults)) {}

bool FaultTimeline::downAt(const FaultSpec &f, double t)
{
    if (!f.activeAt(t))
        return false;
    if (f.type == FaultSpec::Type::Blackout)
        return true;
    if (f.type == FaultSpec::Type::Flapping) {
        const double cycle = f.downSeconds + f.upSeconds;
        const double phase = std::fmod(t - f.from, cycle);
        return phase < f.downSeconds;
    }
    return false;
}

SimError FaultTimeline::pick(const std::vector<ErrorMixEntry> &mix, Random &random)
{
    double total = 0.0;
    for (const ErrorMixEntry &e : mix)
        total += e.weight;
    if (mix.empty() || total <= 0.0)
        return SimError::Http500;
    double x = random.uniform01() * total;
    for (const ErrorMixEntry &e : mix) {
        if (x < e.weight)
            return e.error;
        x -= e.weight;
    }
    return mix.back().error;
}

FaultDecision FaultTimeline::decide(double t, Random &random) const
{
    FaultDecision d;
    auto setError = [&](SimError e, const FaultSpec &f) {
        if (e == SimError::SlowTokens) { // a "slow" answer is still an answer: it stacks with nothing else
            d.tokenRateFactor /= f.factor;
            return;
        }
        if (d.error == SimError::None) {
            d.error = e;
            d.retryAfterSeconds = f.retryAfterSeconds;
            d.afterChars = f.afterChars;
            d.inside = f.inside;
        }
    };
    for (const FaultSpec &f : m_faults) {
        if (!f.activeAt(t))
            continue;
        switch (f.type) {
        case FaultSpec::Type::Blackout:
        case FaultSpec::Type::Flapping:
            if (downAt(f, t))
                setError(pick(f.mix, random), f);
            break;
        case FaultSpec::Type::Errors:
            if (random.chance(f.probability))
                setError(pick(f.mix, random), f);
            break;
        case FaultSpec::Type::LatencySpike:
            if (random.chance(f.probability))
                d.extraTtftMs += f.extraMs.sample(random);
            break;
        case FaultSpec::Type::SlowTokens:
            d.tokenRateFactor /= f.factor;
            break;
        }
    }
    return d;
}

bool FaultTimeline::isDown(double t) const
{
    for (const FaultSpec &f : m_faults) {
        if (downAt(f, t))
            return true;
    }
    return false;
}

bool FaultTimeline::servesWrongPath(double t) const
{
    for (const FaultSpec &f : m_faults) {
        if (f.mix.empty())
            continue;
        const bool onlyWrongPath = std::all_of(f.mix.begin(), f.mix.end(), [](const ErrorMixEntry &e) { return e.error == SimError::WrongPath; });
        const bool always = f.type == FaultSpec::Type::Errors ? f.activeAt(t) && f.probability >= 1.0 : downAt(f, t);
        if (onlyWrongPath && always)
            return true;
    }
    return false;
}

bool FaultTimeline::refusesConnections(double t) const
{
    bool any = false;
    for (const FaultSpec &f : m_faults) {
        if (!downAt(f, t))
            continue;
        for (const ErrorMixEntry &e : f.mix) {
            if (e.error != SimError::ConnectRefused)
                return false;
        }
        any = true;
    }
    return any;
}

double FaultTimeline::nextChange(double t) const
{
    double next = std::numeric_limits<double>::infinity();
    for (const FaultSpec &f : m_faults) {
        if (f.type != FaultSpec::Type::Blackout && f.type != FaultSpec::Type::Flapping)
            continue;
        if (t < f.from) {
            next = std::min(next, f.from);
            continue;
        }
        if (t >= f.to)
            continue;
        double boundary = f.to;
        if (f.type == FaultSpec::Type::Flapping) {
            const double cycle = f.downSeconds + f.upSeconds;
            const double cycleStart = f.from + std::floor((t - f.from) / cycle) * cycle;
            const double phaseEnd = (t - cycleStart < f.downSeconds) ? cycleStart + f.downSeconds : cycleStart + cycle;
            boundary = std::min(boundary, phaseEnd > t ? phaseEnd : phaseEnd + cycle);
        }
        next = std::min(next, boundary);
    }
    return next;
}

KeyLimiter::KeyLimiter(const std::vector<KeySpec> &keys)
{
    for (std::size_t i = 0; i < keys.size(); ++i)
        m_keys[keys[i].secret] = KeyState{keys[i].rpm, i, 0, {}};
}

KeyLimiter::Verdict KeyLimiter::admit(const QByteArray &key, double t, double *retryAfterSeconds)
{
    std::lock_guard lock(m_mutex);
    if (m_keys.empty()) {
        ++m_stats.admitted;
        return Verdict::Admitted;
    }
    const auto it = m_keys.find(key);
    if (it == m_keys.end()) {
        ++m_stats.unknownKey;
        return Verdict::UnknownKey;
    }
    KeyState &state = it->second;
    if (state.rpm > 0) {
        while (!state.recent.empty() && state.recent.front() <= t - 60.0)
            state.recent.pop_front();
        if (static_cast<int>(state.recent.size()) >= state.rpm) {
            ++m_stats.rateLimited;
            if (retryAfterSeconds)
                *retryAfterSeconds = state.recent.front() + 60.0 - t;
            return Verdict::RateLimited;
        }
        state.recent.push_back(t);
    }
    ++state.admitted;
    ++m_stats.admitted;
    return Verdict::Admitted;
}

KeyLimiter::Stats KeyLimiter::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

std::vector<quint64> KeyLimiter::admittedPerKey() const
{
    std::lock_guard lock(m_mutex);
    std::vector<quint64> out(m_keys.size());
    for (const auto &[key, state] : m_keys)
        out[state.index] = state.admitted;
    return out;
}

} // namespace sb::sim
