#pragma once

#include "net/HttpRequest.h"

#include <functional>
#include <memory>

namespace sb {

class ResponseWriter;

// What the local server calls for every request. One handler object exists per worker thread
// (see HttpHandlerFactory), so a handler and everything it owns (e.g. its curl multi handle)
// live on that thread and need no locks for per-worker state.
class HttpHandler {
public:
    virtual ~HttpHandler() = default;
    // Called on the worker thread. The handler answers through `response`, at once or later on
    // the same thread; to answer later it keeps the shared_ptr. Dropping every reference to an
    // unanswered response makes the server answer 500 (or cut a started stream).
    virtual void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) = 0;
};

// Called once on each worker thread when the server starts, with that worker's index; the
// handler is destroyed on the same thread when the server stops, after its connections closed.
using HttpHandlerFactory = std::function<std::unique_ptr<HttpHandler>(int workerIndex)>;

} // namespace sb
