#include "common/json/JsonObjectEdit.h"

#include "common/ByteAssembly.h"
#include "common/json/JsonObjectScan.h"

#include <QVarLengthArray>

#include <algorithm>

namespace sb {

QByteArray withMembersSet(QByteArrayView json, const JsonObjectScan &scan, std::span<const JsonMemberValue> members)
{
    struct Replacement {
        qsizetype begin;
        qsizetype end;
        const QByteArray *value;
    };
    QVarLengthArray<Replacement, 4> replacements;
    QVarLengthArray<const JsonMemberValue *, 4> added;
    for (const JsonMemberValue &member : members) {
        if (const JsonObjectScan::Member *existing = scan.find(member.key))
            replacements.append({existing->valueBegin, existing->valueEnd, &member.value});
        else
            added.append(&member);
    }
    std::sort(replacements.begin(), replacements.end(),
              [](const Replacement &a, const Replacement &b) { return a.begin < b.begin; });

    // Every piece is a view of `json`, of `members` or of a literal: one allocation for the result.
    ByteAssembly out;
    qsizetype copied = scan.openingBrace() + 1;
    out << json.first(copied);
    for (const JsonMemberValue *member : added) {
        if (member != added.front())
            out << ",";
        out << "\"" << member->key << "\":" << member->value;
    }
    if (!added.isEmpty() && !scan.members().isEmpty())
        out << ",";
    for (const Replacement &r : replacements) {
        out << json.sliced(copied, r.begin - copied) << *r.value;
        copied = r.end;
    }
    out << json.sliced(copied);
    return out.take();
}

} // namespace sb
