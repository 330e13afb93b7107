#pragma once

namespace sb {

// Token counts as the provider reported them; -1 where it did not.
//
// promptTokens counts every prompt token, cached ones included, as OpenAI's prompt_tokens does.
// Anthropic's input_tokens leaves out the tokens read from or written to its prompt cache, so its
// adapter adds cache_read_input_tokens and cache_creation_input_tokens back in. cacheReadTokens and
// cacheWriteTokens are the parts of promptTokens that were read from / written to the provider's
// prompt cache (OpenAI's prompt_tokens_details.cached_tokens, DeepSeek's prompt_cache_hit_tokens,
// Anthropic's cache_read_input_tokens / cache_creation_input_tokens); they are priced apart.
struct TokenUsage {
    int promptTokens = -1;
    int completionTokens = -1;
    int totalTokens = -1;
    int cacheReadTokens = -1;
    int cacheWriteTokens = -1;
    bool isKnown() const { return promptTokens >= 0 || completionTokens >= 0; }
    // The prompt tokens billed at the full input price: neither read from nor written to a cache.
    int uncachedPromptTokens() const
    {
        const int prompt = promptTokens > 0 ? promptTokens : 0;
        const int cached = (cacheReadTokens > 0 ? cacheReadTokens : 0) + (cacheWriteTokens > 0 ? cacheWriteTokens : 0);
        return prompt > cached ? prompt - cached : 0;
    }
};

} // namespace sb
