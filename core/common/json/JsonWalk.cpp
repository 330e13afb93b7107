#include "common/json/JsonWalk.h"

#include <cstring>

namespace sb::jsonwalk {

namespace {

// `at` on the opening quote; returns the index just past the closing one.
qsizetype stringEnd(QByteArrayView text, qsizetype at)
{
    const char *const data = text.data();
    const qsizetype size = text.size();
    ++at;
    while (at < size) {
        // Strings are most of a request's bytes: let memchr find the next quote.
        const void *quote = std::memchr(data + at, '"', size_t(size - at));
        if (!quote)
            return size;
        const qsizetype q = static_cast<const char *>(quote) - data;
        // The quote ends the string unless an odd run of backslashes escapes it.
        qsizetype backslashes = 0;
        while (q - 1 - backslashes >= at && data[q - 1 - backslashes] == '\\')
            ++backslashes;
        if (backslashes % 2 == 0)
            return q + 1;
        at = q + 1;
    }
    return size;
}

} // namespace

qsizetype skipSpace(QByteArrayView text, qsizetype at)
{
    while (at < text.size()) {
        const char c = text[at];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            break;
        ++at;
    }
    return at;
}

qsizetype nextItem(QByteArrayView text, qsizetype end)
{
    const qsizetype at = skipSpace(text, end);
    if (at >= text.size() || text[at] != ',')
        return -1;
    return skipSpace(text, at + 1);
}

qsizetype valueEnd(QByteArrayView text, qsizetype at)
{
    if (at >= text.size())
        return text.size();
    const char first = text[at];
    if (first == '"')
        return stringEnd(text, at);
    if (first != '{' && first != '[') {
        // A number or a literal: up to the next delimiter.
        while (at < text.size()) {
            const char c = text[at];
            if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t')
                break;
            ++at;
        }
        return at;
    }
    int depth = 0;
    while (at < text.size()) {
        const char c = text[at];
        if (c == '"') {
            at = stringEnd(text, at);
            continue;
        }
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0)
                return at + 1;
        }
        ++at;
    }
    return text.size();
}

} // namespace sb::jsonwalk
