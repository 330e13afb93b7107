#pragma once

#include <QByteArray>

#include <utility>
#include <vector>

namespace sb {

// HTTP header fields in arrival order. Names compare case-insensitively; a name may repeat.
// Shared by the local server, the upstream client and the provider adapters.
class HttpHeaders {
public:
    using Field = std::pair<QByteArray, QByteArray>;

    void add(QByteArray name, QByteArray value) { m_fields.emplace_back(std::move(name), std::move(value)); }
    // Replaces every field of that name with one.
    void set(const QByteArray &name, QByteArray value);
    void remove(const QByteArray &name);
    bool contains(const QByteArray &name) const;
    // The first value of that name, or an empty array.
    QByteArray value(const QByteArray &name) const;

    const std::vector<Field> &fields() const { return m_fields; }
    bool isEmpty() const { return m_fields.empty(); }
    std::size_t size() const { return m_fields.size(); }

private:
    std::vector<Field> m_fields;
};

} // namespace sb
