#include "model/CacheConfig.h"

namespace sb {

const char *toString(SemanticPreset preset)
{
    switch (preset) {
    case SemanticPreset::Strict: return "strict";
    case SemanticPreset::Balanced: return "balanced";
    case SemanticPreset::Loose: return "loose";
    }
    return "balanced";
}

bool semanticPresetFromString(QStringView text, SemanticPreset *out)
{
    for (auto p : {SemanticPreset::Strict, SemanticPreset::Balanced, SemanticPreset::Loose}) {
        if (text.compare(QLatin1String(toString(p)), Qt::CaseInsensitive) == 0) {
            *out = p;
            return true;
        }
    }
    return false;
}

double similarityThreshold(SemanticPreset preset)
{
    switch (preset) {
    case SemanticPreset::Strict: return 0.97;
    case SemanticPreset::Balanced: return 0.93;
    case SemanticPreset::Loose: return 0.88;
    }
    return 0.93;
}

} // namespace sb
