#pragma once

#include <functional>

namespace sb {

// Runs `fn` on the calling thread's event loop after the current turn: for a result that must
// never be delivered from inside the call that produced it. Not a timer (no time passes).
void runSoon(std::function<void()> fn);

} // namespace sb
