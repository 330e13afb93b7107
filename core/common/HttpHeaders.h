#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include <utility>
#include <vector>

namespace sb {

// ASCII case-insensitive equality of two field names (or tokens), lengths first: what every lookup
// here does, and what hot paths use instead of Qt's case-insensitive compare, which costs
// ~50-200 instructions whatever the lengths.
inline bool sameFieldName(QByteArrayView a, QByteArrayView b)
{
    if (a.size() != b.size())
        return false;
    const auto lowered = [](char c) { return c >= 'A' && c <= 'Z' ? char(c + ('a' - 'A')) : c; };
    for (qsizetype i = 0; i < a.size(); ++i)
        if (lowered(a[i]) != lowered(b[i]))
            return false;
    return true;
}

// HTTP header fields in arrival order. Names compare case-insensitively; a name may repeat.
// Shared by the local server, the upstream client and the provider adapters.
class HttpHeaders {
public:
    using Field = std::pair<QByteArray, QByteArray>;

    void add(QByteArray name, QByteArray value)
    {
        // Room for a usual head at the first field: grown from one, it moved its fields three
        // times on the way to a response's five or six.
        if (m_fields.capacity() == 0)
            m_fields.reserve(kUsualFields);
        m_fields.emplace_back(std::move(name), std::move(value));
    }
    // Replaces every field of that name with one.
    void set(QByteArray name, QByteArray value);
    // Lookups take views, so that a name written as a literal costs no allocation.
    void remove(QByteArrayView name);
    bool contains(QByteArrayView name) const;
    // The first value of that name, or an empty array.
    QByteArray value(QByteArrayView name) const;

    const std::vector<Field> &fields() const { return m_fields; }
    bool isEmpty() const { return m_fields.empty(); }
    std::size_t size() const { return m_fields.size(); }

private:
    static constexpr std::size_t kUsualFields = 8;
    std::vector<Field> m_fields;
};

} // namespace sb
