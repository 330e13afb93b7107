#pragma once

#include <QByteArrayView>
#include <QVarLengthArray>

namespace sb {

// The top-level members of one JSON object, found by a single validating pass over its bytes that
// builds no values. The proxy's hot path uses it to hand an answer that already is OpenAI's shape
// to the client with only "model" rewritten: parsing it into a QJsonObject and writing that back
// cost about 65,000 instructions a request, a fifth of everything the proxy did (callgrind).
//
// Strict on purpose, so that what it accepts is a subset of what Qt's parser accepts: RFC 8259
// syntax, strings of valid UTF-8 without raw control characters, \u escapes with paired
// surrogates, nesting up to kMaxDepth, nothing but whitespace after the object. It also refuses
// top-level keys written with escapes and repeated top-level keys, which would let find() miss or
// pick the wrong member. A caller falls back to QJsonDocument for anything refused.
class JsonObjectScan {
public:
    struct Member {
        QByteArrayView key;   // as written between its quotes (it has no escapes)
        qsizetype valueBegin; // [valueBegin, valueEnd): the value's bytes in the scanned text
        qsizetype valueEnd;
        // The value's bytes in `json`, the text that was scanned.
        QByteArrayView valueIn(QByteArrayView json) const { return json.sliced(valueBegin, valueEnd - valueBegin); }
    };

    static constexpr int kMaxDepth = 64;
    static constexpr int kMaxMembers = 256; // more top-level members than any answer has

    // True when `json` is exactly one acceptable object (surrounding whitespace allowed). The
    // members' keys point into `json`, which must outlive this scan.
    bool scan(QByteArrayView json);

    qsizetype openingBrace() const { return m_openingBrace; }
    const QVarLengthArray<Member, 16> &members() const { return m_members; }
    // The member called `key`, or nullptr.
    const Member *find(QByteArrayView key) const;

private:
    qsizetype m_openingBrace = -1;
    QVarLengthArray<Member, 16> m_members;
};

} // namespace sb
