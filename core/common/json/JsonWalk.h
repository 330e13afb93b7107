#pragma once

#include <QByteArrayView>

namespace sb::jsonwalk {

// Walking JSON text that JsonObjectScan has already accepted, to look inside nested values (a
// request's messages) without building them. Nothing is checked here: on text the scan has not
// accepted the answers mean nothing, though every read stays inside `text`.

// Where a value's bytes are in the text: [begin, end).
struct Span {
    qsizetype begin = 0;
    qsizetype end = 0;
    QByteArrayView in(QByteArrayView text) const { return text.sliced(begin, end - begin); }
};

qsizetype skipSpace(QByteArrayView text, qsizetype at);

// The end of the value that starts at `at`.
qsizetype valueEnd(QByteArrayView text, qsizetype at);

// After an item that ends at `end`: where the next item of its container starts, or -1 when the
// container closes there.
qsizetype nextItem(QByteArrayView text, qsizetype end);

// Calls f(Span) for each element of the array that starts at `at`, until f returns false;
// returns false when f did.
template <typename F>
bool forEachElement(QByteArrayView text, qsizetype at, F &&f)
{
    at = skipSpace(text, at + 1); // past '['
    if (at < text.size() && text[at] == ']')
        return true;
    while (at >= 0 && at < text.size()) {
        const qsizetype end = valueEnd(text, at);
        if (!f(Span{at, end}))
            return false;
        at = nextItem(text, end);
    }
    return true;
}

// Calls f(key, Span) for each member of the object that starts at `at`, until f returns false;
// returns false when f did. `key` is as written between its quotes, escapes and all.
template <typename F>
bool forEachMember(QByteArrayView text, qsizetype at, F &&f)
{
    at = skipSpace(text, at + 1); // past '{'
    while (at >= 0 && at < text.size() && text[at] == '"') {
        const qsizetype keyEnd = valueEnd(text, at);
        const QByteArrayView key = text.sliced(at + 1, keyEnd - at - 2);
        at = skipSpace(text, keyEnd);
        at = skipSpace(text, at + 1); // past ':'
        if (at >= text.size())
            break;
        const qsizetype end = valueEnd(text, at);
        if (!f(key, Span{at, end}))
            return false;
        at = nextItem(text, end);
    }
    return true;
}

// After an item that ends at `end`: true with `*at` on the next item, or false with `*at` on what
// follows it (its container's closing bracket, in whole text).
inline bool toNextItem(QByteArrayView text, qsizetype end, qsizetype *at)
{
    const qsizetype next = nextItem(text, end);
    *at = next < 0 ? skipSpace(text, end) : next;
    return next >= 0;
}

// The index just past the bracket `close` at `at`, or -1 when that is not there.
inline qsizetype pastClose(QByteArrayView text, qsizetype at, char close)
{
    return at < text.size() && text[at] == close ? at + 1 : -1;
}

// Walks without measuring a value first, for a caller that walks into the values it cares about:
// f(key, valueBegin) for each member of the object at `at` returns where that value ends, or -1
// to stop. Returns the index just past the object's closing brace, or -1 when f stopped.
template <typename F>
qsizetype walkMembers(QByteArrayView text, qsizetype at, F &&f)
{
    at = skipSpace(text, at + 1); // past '{'
    while (at < text.size() && text[at] == '"') {
        const qsizetype keyEnd = valueEnd(text, at);
        const QByteArrayView key = text.sliced(at + 1, keyEnd - at - 2);
        at = skipSpace(text, skipSpace(text, keyEnd) + 1); // past ':'
        if (at >= text.size())
            return -1;
        const qsizetype end = f(key, at);
        if (end < 0)
            return -1;
        if (!toNextItem(text, end, &at))
            break;
    }
    return pastClose(text, at, '}');
}

// The same for the elements of the array at `at`: f(elementBegin) returns where it ends.
template <typename F>
qsizetype walkElements(QByteArrayView text, qsizetype at, F &&f)
{
    at = skipSpace(text, at + 1); // past '['
    while (at < text.size() && text[at] != ']') {
        const qsizetype end = f(at);
        if (end < 0)
            return -1;
        if (!toNextItem(text, end, &at))
            break;
    }
    return pastClose(text, at, ']');
}

} // namespace sb::jsonwalk
