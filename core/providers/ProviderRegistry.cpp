#include "providers/ProviderRegistry.h"

#include "providers/anthropic/AnthropicAdapter.h"
#include "providers/dashscope/DashScopeAdapter.h"
#include "providers/ernie/ErnieAdapter.h"
#include "providers/gemini/GeminiAdapter.h"
#include "providers/openai_compat/OpenAiCompatAdapter.h"

namespace sb {

namespace {

template <class Adapter>
const ProviderAdapter *instance()
{
    static const Adapter adapter; // thread-safe initialisation; adapters hold no state
    return &adapter;
}

using AdapterInstance = const ProviderAdapter *(*)();

// One line per dialect. Adding one: its folder under core/providers/, its #include above, a line here.
constexpr AdapterInstance Dialects[] = {
    &instance<OpenAiCompatAdapter>,
    &instance<AnthropicAdapter>,
    &instance<GeminiAdapter>,
    &instance<DashScopeAdapter>,
    &instance<ErnieAdapter>,
};

} // namespace

const ProviderAdapter *ProviderRegistry::find(QStringView dialect)
{
    for (AdapterInstance get : Dialects) {
        const ProviderAdapter *adapter = get();
        if (adapter->dialect() == dialect)
            return adapter;
    }
    return nullptr;
}

std::vector<const ProviderAdapter *> ProviderRegistry::all()
{
    std::vector<const ProviderAdapter *> out;
    for (AdapterInstance get : Dialects)
        out.push_back(get());
    return out;
}

QStringList ProviderRegistry::dialects()
{
    QStringList out;
    for (AdapterInstance get : Dialects)
        out << get()->dialect();
    return out;
}

} // namespace sb
