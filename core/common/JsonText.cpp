#include "common/JsonText.h"

#include <charconv>

namespace sb {

namespace {

char hexDigit(unsigned value) { return "0123456789abcdef"[value & 0xF]; }

} // namespace

void appendJsonString(QByteArray *out, const QString &text)
{
    const QByteArray utf8 = text.toUtf8();
    out->reserve(out->size() + utf8.size() + 2);
    out->append('"');
    for (const char ch : utf8) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"': out->append("\\\""); break;
        case '\\': out->append("\\\\"); break;
        case '\b': out->append("\\b"); break;
        case '\f': out->append("\\f"); break;
        case '\n': out->append("\\n"); break;
        case '\r': out->append("\\r"); break;
        case '\t': out->append("\\t"); break;
        default:
            if (c < 0x20) {
                const char escape[] = {'\\', 'u', '0', '0', hexDigit(c >> 4), hexDigit(c)};
                out->append(escape, sizeof escape);
            } else {
                out->append(ch);
            }
        }
    }
    out->append('"');
}

void appendJsonNumber(QByteArray *out, qint64 value)
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out->append(digits, end - digits);
}

} // namespace sb
