// What reading many readable sockets costs one by one against one io_uring submission
// (SocketBatch::addReceive, as ReadAhead reads a turn's sockets): loopback TCP connections with a
// small request waiting on each, read with a recv(2) apiece and then all at once, alternating,
// for 1 to 40 sockets. Prints microseconds a socket; asserts nothing.
//
//   bench_receive_batch [ROUNDS]
#include "net/SocketBatch.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace sb;

namespace {

constexpr std::size_t kSlot = 16 * 1024;
constexpr int kRequestBytes = 200; // about a small chat request's head and body

// `count` loopback TCP connections: the client ends write, the accepted (non-blocking) ends read.
struct Connections {
    std::vector<int> writers, readers;
    explicit Connections(int count)
    {
        const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (::bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 || ::listen(listener, 128) != 0
            || ::getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length) != 0) {
            std::perror("listen");
            std::exit(1);
        }
        for (int i = 0; i < count; ++i) {
            const int writer = ::socket(AF_INET, SOCK_STREAM, 0);
            if (::connect(writer, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0) {
                std::perror("connect");
                std::exit(1);
            }
            const int on = 1;
            ::setsockopt(writer, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
            writers.push_back(writer);
            readers.push_back(::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK));
        }
        ::close(listener);
    }
    ~Connections()
    {
        for (const int d : writers)
            ::close(d);
        for (const int d : readers)
            ::close(d);
    }
    void sendEach(const char *bytes) const
    {
        for (const int d : writers) {
            if (::write(d, bytes, kRequestBytes) != kRequestBytes)
                std::exit(1);
        }
    }
};

double micros(std::chrono::steady_clock::duration d)
{
    return std::chrono::duration<double, std::micro>(d).count();
}

} // namespace

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 20000;
    SocketBatch &batch = SocketBatch::forThisThread();
    if (!batch.available()) {
        std::puts("io_uring is not available here: nothing to compare");
        return 0;
    }
    char request[kRequestBytes];
    std::memset(request, 'r', sizeof request);
    std::vector<char> slots(40 * kSlot);
    std::printf("%8s %22s %22s %8s\n", "sockets", "recv one by one (us)", "one submission (us)", "ratio");
    for (const int count : {1, 2, 4, 9, 18, 40}) {
        const Connections connections(count);
        std::chrono::steady_clock::duration oneByOne{}, batched{};
        for (int round = 0; round < rounds; ++round) {
            connections.sendEach(request);
            auto start = std::chrono::steady_clock::now();
            for (int i = 0; i < count; ++i) {
                if (::recv(connections.readers[std::size_t(i)], &slots[std::size_t(i) * kSlot], kSlot, 0) != kRequestBytes)
                    return 1;
            }
            oneByOne += std::chrono::steady_clock::now() - start;
            connections.sendEach(request);
            start = std::chrono::steady_clock::now();
            for (int i = 0; i < count; ++i)
                batch.addReceive(connections.readers[std::size_t(i)], &slots[std::size_t(i) * kSlot], kSlot, std::size_t(i));
            for (const SocketBatch::Result &result : batch.run()) {
                if (result.bytes != kRequestBytes)
                    return 1;
            }
            batched += std::chrono::steady_clock::now() - start;
        }
        const double a = micros(oneByOne) / rounds / count, b = micros(batched) / rounds / count;
        std::printf("%8d %22.3f %22.3f %8.2f\n", count, a, b, b / a);
    }
    return 0;
}
