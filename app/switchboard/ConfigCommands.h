#pragma once

struct AppOptions;

// `switchboard --export FILE [--with-keys]` and `switchboard --import FILE`: for scripts and for a
// service's configuration, without a window or an engine. Returns the process's exit code: 0 done,
// 1 refused (the sentences on stderr), 2 a usage error.
int runConfigCommand(const AppOptions &options);
