#pragma once

#include "common/HttpHeaders.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace sb {

// The fields of one head being read on a keep-alive connection, from llhttp's pieces. A
// connection's heads repeat nearly field for field (one client's requests, one upstream's
// answers), so a name or value whose bytes are those of the previous head's field at the same
// place shares that field's array instead of allocating its own: two allocations and two frees
// a field, ~18 a proxied request, were a quarter of what parsing its two heads cost (callgrind). A
// shared array is Qt's implicit sharing, safe to keep or change anywhere.
class RepeatedHead {
public:
    // llhttp hands a target, name or value over in pieces, nearly always one; these keep their room.
    // (std::string's append costs a fifth of QByteArray's general one.)
    void appendTarget(const char *at, std::size_t length) { m_target.append(at, length); }
    void appendName(const char *at, std::size_t length) { m_name.append(at, length); }
    void appendValue(const char *at, std::size_t length) { m_value.append(at, length); }
    QByteArrayView name() const { return view(m_name); }

    // The request line's target read, shared with the previous request's when it is the same.
    QByteArray takeTarget()
    {
        if (same(m_previousTarget, view(m_target))) {
            m_target.clear();
            return m_previousTarget;
        }
        QByteArray target = copy(view(m_target));
        m_target.clear();
        m_previousTarget = target.size() <= kRememberedBytes ? target : QByteArray();
        return target;
    }

    // True when the name read so far is the previous head's at `index`: it was checked then.
    bool nameRepeats(std::size_t index) const { return index < m_previous.size() && same(m_previous[index].first, name()); }

    // Adds the field read to `head` (its value without the trailing whitespace llhttp leaves;
    // it strips the leading one) and gets ready for the next.
    void addTo(HttpHeaders &head)
    {
        const QByteArrayView name = view(m_name), value = view(m_value).trimmed();
        add(head, name, value, repeatOf(head.size(), name, value));
        m_name.clear();
        m_value.clear();
    }

    // A field read whole (a head read without llhttp) beside the previous head's at the same
    // place: the arrays whose bytes it repeats, which passed then whatever checks they pass now.
    struct Repeat {
        const QByteArray *name = nullptr;
        const QByteArray *value = nullptr;
    };
    Repeat repeatOf(std::size_t index, QByteArrayView name, QByteArrayView value) const
    {
        if (index >= m_previous.size())
            return {};
        const HttpHeaders::Field &previous = m_previous[index];
        return {same(previous.first, name) ? &previous.first : nullptr, same(previous.second, value) ? &previous.second : nullptr};
    }
    // Adds that field to `head`, `value` as it goes in.
    static void add(HttpHeaders &head, QByteArrayView name, QByteArrayView value, const Repeat &repeat)
    {
        head.add(repeat.name ? *repeat.name : copy(name), repeat.value ? *repeat.value : copy(value));
    }

    // A message begins: whatever a broken one left is dropped.
    void restart()
    {
        m_target.clear();
        m_name.clear();
        m_value.clear();
    }

    // The head is complete: the next one is compared with it. A large one is not kept: an idle
    // connection would hold its bytes until its next request.
    void remember(const HttpHeaders &head)
    {
        qsizetype bytes = 0;
        for (const auto &[name, value] : head.fields())
            bytes += name.size() + value.size();
        if (bytes <= kRememberedBytes)
            m_previous = head.fields();
        else
            m_previous.clear();
    }

    static constexpr qsizetype kRememberedBytes = 4096; // a usual head is a few hundred

private:
    static QByteArrayView view(const std::string &bytes) { return QByteArrayView(bytes.data(), qsizetype(bytes.size())); }
    static QByteArray copy(QByteArrayView bytes) { return QByteArray(bytes.data(), bytes.size()); }
    static bool same(const QByteArray &a, QByteArrayView b)
    {
        return a.size() == b.size() && std::memcmp(a.constData(), b.data(), std::size_t(b.size())) == 0;
    }

    std::string m_target;
    QByteArray m_previousTarget;
    std::string m_name;
    std::string m_value;
    std::vector<HttpHeaders::Field> m_previous;
};

} // namespace sb
