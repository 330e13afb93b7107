#pragma once

#include "common/HttpHeaders.h"
#include "net/RepeatedHead.h"

#include <QByteArrayView>

namespace sb::plainhead {

// The one-pass reading of an HTTP/1.1 head that both directions use for their usual message (the
// client's request, the upstream's answer) when it is in the bytes at hand, beside llhttp for the
// rest. It takes only what llhttp reads the same way: lines ended by CRLF, field names that are
// tokens, values of visible ASCII, SP and HTAB, one plain Content-Length, Connection only
// keep-alive, no Transfer-Encoding, Upgrade or Proxy-Connection. A head with anything else is not
// read here (false), and its reader hands the same bytes to llhttp from the first one.

// Where the line that begins at `from` ends (its CR of CRLF), or null when `end` comes first or a
// CR stands alone there.
const char *lineEnd(const char *from, const char *end);

// Only HTAB, SP and visible ASCII (llhttp takes obs-text too; such heads go to it).
bool isPlain(QByteArrayView text);

struct Fields {
    qint64 contentLength = -1; // none
    int count = 0;
    // What the server's header-size limit counts: each name and value as llhttp hands them over
    // (the value without its leading whitespace) and four bytes for ": " and CRLF.
    qint64 bytes = 0;
    const char *end = nullptr; // just past the blank line
};

// Reads the field lines from `at` through the blank line into `headers`, sharing the arrays of
// `repeated`'s previous head where the bytes are the same; false when the blank line is not within
// `end` or a line is not plain as above.
bool readFields(const char *at, const char *end, RepeatedHead &repeated, HttpHeaders &headers, Fields *fields);

} // namespace sb::plainhead
