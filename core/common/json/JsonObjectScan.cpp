#include "common/json/JsonObjectScan.h"

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace sb {

namespace {

using Byte = unsigned char;

// Keys are short: a length check and memcmp, without Qt's out-of-line comparison around it.
bool sameBytes(QByteArrayView a, QByteArrayView b)
{
    return a.size() == b.size() && (a.isEmpty() || std::memcmp(a.data(), b.data(), size_t(a.size())) == 0);
}

bool isContinuation(Byte b) { return (b & 0xC0) == 0x80; }

int hexValue(Byte c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// Bytes that stand for themselves inside a JSON string: printable ASCII but '"' and '\\'.
constexpr auto kPlainStringByte = [] {
    std::array<bool, 256> plain{};
    for (int c = 0x20; c < 0x80; ++c)
        plain[c] = c != '"' && c != '\\';
    return plain;
}();

// One recursive-descent pass; every member function leaves `p` just past what it accepted.
class Scanner {
public:
    Scanner(const Byte *begin, const Byte *end) : m_begin(begin), p(begin), m_end(end) {}

    bool document(QVarLengthArray<JsonObjectScan::Member, 16> *members, qsizetype *openingBrace)
    {
        skipSpace();
        if (p == m_end || *p != '{')
            return false;
        *openingBrace = p - m_begin;
        if (!object(members))
            return false;
        skipSpace();
        return p == m_end;
    }

private:
    void skipSpace()
    {
        // Mostly there is none: any byte above ' ' ends it at the first comparison.
        while (p != m_end && *p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
            ++p;
    }

    bool value()
    {
        if (p == m_end)
            return false;
        switch (*p) {
        case '{': return object(nullptr);
        case '[': return array();
        case '"': {
            bool escaped = false;
            return string(&escaped);
        }
        case 't': return literal("true", 4);
        case 'f': return literal("false", 5);
        case 'n': return literal("null", 4);
        default: return number();
        }
    }

    // A member's value or an array's element: a string (most of them) without the call to value().
    bool item()
    {
        if (p != m_end && *p == '"') {
            bool escaped = false;
            return string(&escaped);
        }
        return value();
    }

    // `members` is set for the top-level object only.
    bool object(QVarLengthArray<JsonObjectScan::Member, 16> *members)
    {
        Step step = open('}');
        while (step == Step::Next) {
            if (p == m_end || *p != '"')
                return false;
            const Byte *keyBegin = p + 1;
            bool escaped = false;
            if (!string(&escaped))
                return false;
            const QByteArrayView key(keyBegin, p - 1 - keyBegin);
            skipSpace();
            if (p == m_end || *p != ':')
                return false;
            ++p;
            skipSpace();
            const Byte *valueBegin = p;
            if (!item())
                return false;
            if (members) {
                if (escaped || members->size() >= JsonObjectScan::kMaxMembers)
                    return false;
                members->append({key, valueBegin - m_begin, p - m_begin});
            }
            step = afterItem('}');
        }
        return step == Step::Closed;
    }

    bool array()
    {
        Step step = open(']');
        while (step == Step::Next) {
            if (!item())
                return false;
            step = afterItem(']');
        }
        return step == Step::Closed;
    }

    // Where a container stands after its opening bracket or after one of its items.
    enum class Step { Next, Closed, Invalid };

    // p at the opening bracket: one level deeper, and the container may close at once.
    Step open(Byte close)
    {
        if (++m_depth > JsonObjectScan::kMaxDepth)
            return Step::Invalid;
        ++p;
        skipSpace();
        return p != m_end && *p == close ? closeContainer() : Step::Next;
    }

    // After an item: a comma and another item, or the closing bracket.
    Step afterItem(Byte close)
    {
        skipSpace();
        if (p == m_end)
            return Step::Invalid;
        if (*p == ',') {
            ++p;
            skipSpace();
            return Step::Next;
        }
        return *p == close ? closeContainer() : Step::Invalid;
    }

    Step closeContainer()
    {
        ++p;
        --m_depth;
        return Step::Closed;
    }

    bool string(bool *escaped)
    {
        ++p; // opening quote
        while (p != m_end) {
            // Most of an answer's bytes are plain ASCII inside strings: eight at a time, then (in
            // the last few bytes of the text) one table lookup each.
            if (!skipPlainBytes()) {
                while (p != m_end && kPlainStringByte[*p])
                    ++p;
            }
            if (p == m_end)
                break;
            const Byte c = *p;
            if (c == '"') {
                ++p;
                return true;
            }
            if (c == '\\') {
                *escaped = true;
                if (!escape())
                    return false;
            } else if (c < 0x20) {
                return false;
            } else if (c < 0x80) {
                ++p;
            } else if (!utf8Sequence()) {
                return false;
            }
        }
        return false;
    }

    // Moves p past plain string bytes eight at a time, up to the first byte that needs a look
    // when a word holds one (true), or up to the last whole word (false). A byte needs a look when
    // it is a quote, a backslash, below 0x20 or above 0x7F; the usual bit tricks flag each such
    // byte's top bit: `x - 0x20` borrows below 0x20, `(x ^ c) - 1` borrows where x == c. A borrow
    // can only flag a byte after one truly flagged, so the lowest flag is exact.
    bool skipPlainBytes()
    {
        constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
        constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
        while (m_end - p >= 8) {
            std::uint64_t word;
            std::memcpy(&word, p, sizeof word);
            const std::uint64_t belowSpace = word - kOnes * 0x20;
            const std::uint64_t quote = (word ^ (kOnes * '"')) - kOnes;
            const std::uint64_t backslash = (word ^ (kOnes * '\\')) - kOnes;
            // ~word keeps the borrows of bytes below 0x80 only; `word` itself flags the high bytes.
            const std::uint64_t flags = (((belowSpace | quote | backslash) & ~word) | word) & kHighBits;
            if (flags != 0) {
                if constexpr (std::endian::native != std::endian::little)
                    return false; // the byte loop finds it
                p += std::countr_zero(flags) / 8;
                return true;
            }
            p += 8;
        }
        return false;
    }

    // p at the backslash.
    bool escape()
    {
        if (m_end - p < 2)
            return false;
        switch (p[1]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            p += 2;
            return true;
        case 'u': {
            const int unit = unicodeEscape();
            if (unit < 0 || (unit >= 0xDC00 && unit <= 0xDFFF))
                return false; // a low surrogate on its own
            if (unit >= 0xD800 && unit <= 0xDBFF) {
                if (m_end - p < 2 || p[0] != '\\' || p[1] != 'u')
                    return false; // a high surrogate on its own
                const int low = unicodeEscape();
                return low >= 0xDC00 && low <= 0xDFFF;
            }
            return true;
        }
        default:
            return false;
        }
    }

    // p at "\u"; returns the code unit of "\uXXXX" and moves past it, or -1.
    int unicodeEscape()
    {
        if (m_end - p < 6)
            return -1;
        int unit = 0;
        for (int i = 2; i < 6; ++i) {
            const int digit = hexValue(p[i]);
            if (digit < 0)
                return -1;
            unit = unit * 16 + digit;
        }
        p += 6;
        return unit;
    }

    // p at a byte >= 0x80: one well-formed UTF-8 sequence (no overlongs, surrogates or > U+10FFFF).
    bool utf8Sequence()
    {
        const Byte lead = *p;
        int length = 0;
        Byte low = 0x80, high = 0xBF; // the allowed range of the second byte
        if (lead >= 0xC2 && lead <= 0xDF) {
            length = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            length = 3;
            if (lead == 0xE0)
                low = 0xA0;
            else if (lead == 0xED)
                high = 0x9F;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            length = 4;
            if (lead == 0xF0)
                low = 0x90;
            else if (lead == 0xF4)
                high = 0x8F;
        } else {
            return false;
        }
        if (m_end - p < length || p[1] < low || p[1] > high)
            return false;
        for (int i = 2; i < length; ++i)
            if (!isContinuation(p[i]))
                return false;
        p += length;
        return true;
    }

    bool number()
    {
        const Byte *start = p;
        if (*p == '-')
            ++p;
        if (p == m_end)
            return false;
        if (*p == '0') {
            ++p;
        } else if (*p >= '1' && *p <= '9') {
            skipDigits();
        } else {
            return false;
        }
        bool integer = true;
        if (p != m_end && *p == '.') {
            ++p;
            integer = false;
            if (!skipDigits())
                return false;
        }
        if (p != m_end && (*p == 'e' || *p == 'E')) {
            ++p;
            integer = false;
            if (p != m_end && (*p == '+' || *p == '-'))
                ++p;
            if (!skipDigits())
                return false;
        }
        return fitsADouble(start, integer);
    }

    // Qt refuses a number a double cannot hold (1e400); so does the scan, and one too small to be
    // anything but zero as well. Plain integers of up to 18 digits always fit and skip the check.
    bool fitsADouble(const Byte *start, bool integer) const
    {
        if (integer && p - start <= 18)
            return true;
        double value = 0;
        return std::from_chars(reinterpret_cast<const char *>(start), reinterpret_cast<const char *>(p), value).ec
               == std::errc();
    }

    // True when at least one digit was skipped.
    bool skipDigits()
    {
        const Byte *start = p;
        while (p != m_end && *p >= '0' && *p <= '9')
            ++p;
        return p != start;
    }

    bool literal(const char *word, qsizetype length)
    {
        if (m_end - p < length || QByteArrayView(p, length) != QByteArrayView(word, length))
            return false;
        p += length;
        return true;
    }

    const Byte *m_begin;
    const Byte *p;
    const Byte *m_end;
    int m_depth = 0;
};

} // namespace

bool JsonObjectScan::scan(QByteArrayView json)
{
    m_members.clear();
    m_openingBrace = -1;
    const auto *begin = reinterpret_cast<const Byte *>(json.data());
    Scanner scanner(begin, begin + json.size());
    if (!scanner.document(&m_members, &m_openingBrace)) {
        m_members.clear();
        return false;
    }
    // Repeated keys: which one a reader keeps differs between parsers, so none is passed through.
    for (qsizetype i = 0; i < m_members.size(); ++i)
        for (qsizetype j = i + 1; j < m_members.size(); ++j)
            if (sameBytes(m_members[i].key, m_members[j].key)) {
                m_members.clear();
                return false;
            }
    return true;
}

const JsonObjectScan::Member *JsonObjectScan::find(QByteArrayView key) const
{
    for (const Member &member : m_members)
        if (sameBytes(member.key, key))
            return &member;
    return nullptr;
}

} // namespace sb
