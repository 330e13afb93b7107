// Utf8Reassembler: whatever the bytes and however they are cut, the output is valid UTF-8, does not
// depend on where the cuts fall, and equals the input when the input was valid (no byte lost).
#include "FuzzEntries.h"

#include "stream/Utf8Reassembler.h"

namespace sb::fuzz {

int fuzzUtf8Reassembler(const std::uint8_t *data, std::size_t size)
{
    if (size < 1)
        return 0;
    const QByteArrayView input(reinterpret_cast<const char *>(data + 1), static_cast<qsizetype>(size - 1));

    Utf8Reassembler whole;
    QByteArray wholeOut = whole.feed(input);
    wholeOut += whole.flush();

    Utf8Reassembler cut;
    QByteArray cutOut;
    for (QByteArrayView piece : fuzzPieces(input, data[0])) {
        const QByteArray out = cut.feed(piece);
        fuzzCheck(Utf8Reassembler::isValid(out), "every feed() returns whole, valid characters");
        fuzzCheck(cut.pendingBytes() <= 3, "at most 3 bytes are carried");
        cutOut += out;
    }
    cutOut += cut.flush();
    fuzzCheck(cut.pendingBytes() == 0, "flush() leaves nothing carried");

    fuzzCheck(Utf8Reassembler::isValid(wholeOut), "the output is valid UTF-8");
    fuzzCheck(wholeOut == cutOut, "the output does not depend on where the input was cut");
    fuzzCheck(cut.stats().bytesIn == static_cast<std::uint64_t>(input.size()), "bytesIn counts every byte");
    if (Utf8Reassembler::isValid(input))
        fuzzCheck(wholeOut == input, "valid input passes through unchanged");
    return 0;
}

} // namespace sb::fuzz
