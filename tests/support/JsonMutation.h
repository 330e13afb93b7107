#pragma once

#include <QByteArray>
#include <QRandomGenerator>

namespace sb::test {

// `json` with one to three small corruptions (a byte replaced, a few removed, one inserted), drawn
// mostly from JSON's own punctuation, digits, literals' letters and UTF-8 lead bytes, so that
// many mutants stay nearly valid: for holding a fast parser to a reference one.
inline QByteArray mutatedJson(QByteArray json, QRandomGenerator &random)
{
    static const char alphabet[] = "{}[]\":,\\ 0123456789-+.eEtrufalsn\x80\xC3\xA9\xED\xF0";
    const int edits = 1 + int(random.bounded(3));
    for (int e = 0; e < edits && !json.isEmpty(); ++e) {
        const qsizetype at = random.bounded(int(json.size()));
        const char byte = random.bounded(4) == 0 ? char(random.bounded(256)) : alphabet[random.bounded(int(sizeof alphabet - 1))];
        switch (random.bounded(3)) {
        case 0: json[at] = byte; break;
        case 1: json.remove(at, 1 + random.bounded(3)); break;
        default: json.insert(at, byte); break;
        }
    }
    return json;
}

} // namespace sb::test
