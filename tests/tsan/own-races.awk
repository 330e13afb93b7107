# Reads ThreadSanitizer's reports; prints those worth reading (see run.sh) and counts the rest.
# A report is the text between two lines of '='. Its access stacks are the sections that start
# "  Read", "  Write", "  Previous ..." or "  Atomic ..."; its other sections (where the memory was
# allocated, who created the threads) are ignored: every worker is created inside HttpServer, and
# a hand-off pattern there would hide everything a worker does.

function handOff(stack) {
    return stack ~ /QFunctorSlotObject|QMetaType|invokeMethod|sendPostedEvents|QThreadPool|QRunnable|QWaitCondition|moveToThread|QSignalSpy|QTest::qRun|eventfd|FunctorCall/ \
        || stack ~ /HttpServer::(HttpServer|listen|shutdown|handOver|~HttpServer|serverPort)|ServerWorker::|Gateway::(start|stop|openServer)/ \
        || stack ~ /FakeProvider::(openListener|closeListener)|~EpollEventDispatcher|LoopThread::run/
}

# A call ThreadSanitizer intercepts (the allocator, libc's memory and descriptor calls) is made
# where it was called from: free() or memcpy() inside Qt is Qt's, memory reused after Qt's own
# reference count, which the sanitizer cannot see, let it go.
function intercepted(frame) {
    return frame ~ /^    #0 (malloc|calloc|realloc|free|operator new|operator delete|memcpy|memmove|memset|memcmp|read|write|close)[ ([]/
}

# The access itself is the project's: one of its three innermost frames names our code (a template
# of the standard library or of Qt's headers instantiated for it counts); for an intercepted call,
# the frame that made it.
function ownCode(stack,    lines, n, i, frames, count, ours) {
    ours = "(sb::|tst_[A-Za-z0-9_]+::)"
    n = split(stack, lines, "\n")
    count = 0
    for (i = 1; i <= n; i++)
        if (lines[i] ~ /^    #[0-9]+ /)
            frames[++count] = lines[i]
    if (count == 0)
        return 0
    if (intercepted(frames[1]))
        return count >= 2 && frames[2] ~ ours
    for (i = 1; i <= 3 && i <= count; i++)
        if (frames[i] ~ ours)
            return 1
    return 0
}

function finish(    i, own, skipped) {
    if (report == "" || report !~ /WARNING: ThreadSanitizer/)
        return
    own = 0
    skipped = 0
    for (i = 1; i <= accesses; i++) {
        if (handOff(access[i]))
            skipped = 1
        if (ownCode(access[i]))
            own = 1
    }
    if (own && !skipped) {
        printed++
        print report
    } else {
        left++
    }
}

/^==================$/ {
    finish()
    report = ""
    accesses = 0
    inAccess = 0
    next
}

{
    report = report "\n" $0
    if ($0 ~ /^  (Previous )?(atomic )?([Rr]ead|[Ww]rite|Atomic)/) {
        accesses++
        access[accesses] = ""
        inAccess = 1
    } else if ($0 ~ /^  [A-Z]/ || $0 ~ /^SUMMARY/) {
        inAccess = 0
    }
    if (inAccess)
        access[accesses] = access[accesses] "\n" $0
}

END {
    finish()
    printf "ThreadSanitizer: %d report(s) in the project's own code, %d left out (Qt's hand-offs between threads, or no frame of ours)\n", printed, left
}
