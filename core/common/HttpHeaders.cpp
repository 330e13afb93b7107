#include "common/HttpHeaders.h"

#include <algorithm>

namespace sb {

static bool sameName(const QByteArray &a, const QByteArray &b)
{
    return a.compare(b, Qt::CaseInsensitive) == 0;
}

void HttpHeaders::set(const QByteArray &name, QByteArray value)
{
    remove(name);
    add(name, std::move(value));
}

void HttpHeaders::remove(const QByteArray &name)
{
    m_fields.erase(std::remove_if(m_fields.begin(), m_fields.end(),
                                  [&](const Field &f) { return sameName(f.first, name); }),
                   m_fields.end());
}

bool HttpHeaders::contains(const QByteArray &name) const
{
    return std::any_of(m_fields.begin(), m_fields.end(), [&](const Field &f) { return sameName(f.first, name); });
}

QByteArray HttpHeaders::value(const QByteArray &name) const
{
    for (const auto &f : m_fields)
        if (sameName(f.first, name))
            return f.second;
    return QByteArray();
}

} // namespace sb
