#include "common/json/JsonObjectEdit.h"

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
    QByteArray added;
    qsizetype extra = 0;
    for (const JsonMemberValue &member : members) {
        extra += member.key.size() + member.value.size() + 4;
        if (const JsonObjectScan::Member *existing = scan.find(member.key)) {
            replacements.append({existing->valueBegin, existing->valueEnd, &member.value});
            continue;
        }
        if (!added.isEmpty())
            added += ',';
        added += '"';
        added += member.key;
        added += "\":";
        added += member.value;
    }
    std::sort(replacements.begin(), replacements.end(),
              [](const Replacement &a, const Replacement &b) { return a.begin < b.begin; });

    QByteArray out;
    out.reserve(json.size() + extra);
    qsizetype copied = scan.openingBrace() + 1;
    out.append(json.first(copied));
    if (!added.isEmpty()) {
        out.append(added);
        if (!scan.members().isEmpty())
            out.append(',');
    }
    for (const Replacement &r : replacements) {
        out.append(json.sliced(copied, r.begin - copied));
        out.append(*r.value);
        copied = r.end;
    }
    out.append(json.sliced(copied));
    return out;
}

} // namespace sb
