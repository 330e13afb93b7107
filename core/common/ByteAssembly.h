#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QVarLengthArray>

#include <cstring>

namespace sb {

// Builds a byte string from pieces with one allocation: the pieces are only noted as they come,
// then copied into a buffer of the final size. For the HTTP heads written on every request, where
// QByteArray::append's per-call bookkeeping cost more than copying the bytes. The pieces must
// outlive take().
class ByteAssembly {
public:
    ByteAssembly &operator<<(QByteArrayView piece)
    {
        if (!piece.isEmpty()) {
            m_pieces.push_back(piece);
            m_size += piece.size();
        }
        return *this;
    }

    QByteArray take() const
    {
        QByteArray out(m_size, Qt::Uninitialized);
        char *at = out.data();
        for (const QByteArrayView piece : m_pieces) {
            std::memcpy(at, piece.data(), static_cast<std::size_t>(piece.size()));
            at += piece.size();
        }
        return out;
    }

private:
    QVarLengthArray<QByteArrayView, 64> m_pieces;
    qsizetype m_size = 0;
};

} // namespace sb
