#include "common/HttpHeaders.h"

#include <algorithm>

namespace sb {

void HttpHeaders::set(QByteArray name, QByteArray value)
{
    remove(name);
    add(std::move(name), std::move(value));
}

void HttpHeaders::remove(QByteArrayView name)
{
    m_fields.erase(std::remove_if(m_fields.begin(), m_fields.end(),
                                  [&](const Field &f) { return sameFieldName(f.first, name); }),
                   m_fields.end());
}

bool HttpHeaders::contains(QByteArrayView name) const
{
    return std::any_of(m_fields.begin(), m_fields.end(), [&](const Field &f) { return sameFieldName(f.first, name); });
}

QByteArray HttpHeaders::value(QByteArrayView name) const
{
    for (const auto &f : m_fields)
        if (sameFieldName(f.first, name))
            return f.second;
    return QByteArray();
}

} // namespace sb
