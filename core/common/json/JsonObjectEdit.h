#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include <span>

namespace sb {

class JsonObjectScan;

// One top-level member to set: `value` is its JSON text ("\"gpt-4o\"", "1718000000", "{…}").
struct JsonMemberValue {
    QByteArrayView key;
    QByteArray value;
};

// `json` (the bytes `scan` accepted) with each member's value replaced, or the member added right
// after the opening brace when the object has none of that name; every other byte stays as it was.
// What lets a pass-through dialect forward a body without parsing it into values and writing them
// back (see JsonObjectScan).
QByteArray withMembersSet(QByteArrayView json, const JsonObjectScan &scan, std::span<const JsonMemberValue> members);

} // namespace sb
