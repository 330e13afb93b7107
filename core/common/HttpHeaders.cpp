#include "common/HttpHeaders.h"

#include <algorithm>

namespace sb {

namespace {

char lowered(char c) { return c >= 'A' && c <= 'Z' ? char(c + ('a' - 'A')) : c; }

// ASCII case-insensitive, lengths first: most names a lookup passes differ in length.
bool sameName(QByteArrayView a, QByteArrayView b)
{
    if (a.size() != b.size())
        return false;
    for (qsizetype i = 0; i < a.size(); ++i)
        if (lowered(a[i]) != lowered(b[i]))
            return false;
    return true;
}

} // namespace

void HttpHeaders::set(QByteArray name, QByteArray value)
{
    remove(name);
    add(std::move(name), std::move(value));
}

void HttpHeaders::remove(QByteArrayView name)
{
    m_fields.erase(std::remove_if(m_fields.begin(), m_fields.end(),
                                  [&](const Field &f) { return sameName(f.first, name); }),
                   m_fields.end());
}

bool HttpHeaders::contains(QByteArrayView name) const
{
    return std::any_of(m_fields.begin(), m_fields.end(), [&](const Field &f) { return sameName(f.first, name); });
}

QByteArray HttpHeaders::value(QByteArrayView name) const
{
    for (const auto &f : m_fields)
        if (sameName(f.first, name))
            return f.second;
    return QByteArray();
}

} // namespace sb
