#include "net/PlainHead.h"

#include "common/json/JsonLiterals.h"
#include "net/HttpSyntax.h"

#include <cstdint>
#include <cstring>

namespace sb::plainhead {

namespace {

bool isPlainByte(unsigned char c)
{
    return c == '\t' || unsigned(c - 0x20) < 0x5f;
}

// The fields that decide how a message ends and what becomes of its connection.
enum class Framing { None, Length, Connection, Other };

Framing framingField(QByteArrayView name)
{
    switch (name.size()) { // most names are none of them, and are told apart by their length alone
    case 7:
        return sameFieldName(name, "upgrade") ? Framing::Other : Framing::None;
    case 10:
        return sameFieldName(name, "connection") ? Framing::Connection : Framing::None;
    case 14:
        return sameFieldName(name, "content-length") ? Framing::Length : Framing::None;
    case 16:
        return sameFieldName(name, "proxy-connection") ? Framing::Other : Framing::None; // llhttp reads it as Connection
    case 17:
        return sameFieldName(name, "transfer-encoding") ? Framing::Other : Framing::None;
    default:
        return Framing::None;
    }
}

bool isWhitespace(char c)
{
    return c == ' ' || c == '\t';
}

} // namespace

const char *lineEnd(const char *from, const char *end)
{
    const void *cr = std::memchr(from, '\r', std::size_t(end - from));
    if (!cr)
        return nullptr;
    const char *at = static_cast<const char *>(cr);
    return at + 1 < end && at[1] == '\n' ? at : nullptr;
}

bool isPlain(QByteArrayView text)
{
    // Eight bytes at a time: a word none of whose bytes is below SP, DEL or above it is plain
    // (a tab, rare in a value, sends its word to the byte-by-byte test).
    constexpr std::uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    const char *at = text.data();
    const char *const end = at + text.size();
    for (; end - at >= 8; at += 8) {
        std::uint64_t word;
        std::memcpy(&word, at, sizeof word);
        const std::uint64_t belowSpace = (word - ones * 0x20) & ~word;
        const std::uint64_t del = word ^ (ones * 0x7f);
        const std::uint64_t isDel = (del - ones) & ~del;
        if (((belowSpace | isDel | word) & highs) != 0) {
            for (int i = 0; i < 8; ++i)
                if (!isPlainByte(static_cast<unsigned char>(at[i])))
                    return false;
        }
    }
    for (; at < end; ++at)
        if (!isPlainByte(static_cast<unsigned char>(*at)))
            return false;
    return true;
}

bool readFields(const char *at, const char *end, RepeatedHead &repeated, HttpHeaders &headers, Fields *fields)
{
    for (;;) {
        const char *const lineAt = lineEnd(at, end);
        if (!lineAt)
            return false; // the head goes on past these bytes
        if (lineAt == at) {
            fields->end = at + 2;
            return true;
        }
        const QByteArrayView field(at, lineAt - at);
        at = lineAt + 2;
        const void *colonAt = std::memchr(field.data(), ':', std::size_t(field.size()));
        const qsizetype colon = colonAt ? static_cast<const char *>(colonAt) - field.data() : -1;
        if (colon <= 0)
            return false;
        const QByteArrayView name = field.first(colon);
        QByteArrayView value = field.sliced(colon + 1);
        while (!value.isEmpty() && isWhitespace(value.front()))
            value = value.sliced(1);
        const QByteArrayView asSent = value; // llhttp hands over the trailing whitespace too
        while (!value.isEmpty() && isWhitespace(value.back()))
            value.chop(1);
        // A name or value the previous head had at this place passed these checks then.
        const RepeatedHead::Repeat repeat = repeated.repeatOf(headers.size(), name, value);
        if ((!repeat.name && !isHttpToken(name)) || (!repeat.value && !isPlain(value)))
            return false;
        switch (framingField(name)) {
        case Framing::None:
            break;
        case Framing::Length:
            // Digits only: llhttp refuses some whitespace after them.
            if (fields->contentLength >= 0 || (fields->contentLength = jsonliteral::plainInteger(asSent).value_or(-1)) < 0)
                return false;
            break;
        case Framing::Connection:
            if (!sameFieldName(asSent, "keep-alive"))
                return false;
            break;
        case Framing::Other:
            return false;
        }
        ++fields->count;
        fields->bytes += name.size() + asSent.size() + 4;
        RepeatedHead::add(headers, name, value, repeat);
    }
}

} // namespace sb::plainhead
