#pragma once

#include <cstddef>
#include <iterator>
#include <vector>

namespace sb {

// A FIFO of rows that keeps its storage: pushed at the back, taken from the front a batch at a
// time. A std::deque of elements as large as a history row (248 bytes) allocates a 512-byte block
// for every second one; this allocates only while it grows. Taken rows are erased from the front
// once they are half of the storage, so each row is moved at most once more however long the
// queue grows.
template <class T>
class RowQueue {
public:
    std::size_t size() const { return m_rows.size() - m_head; }
    bool empty() const { return size() == 0; }
    void push_back(T row) { m_rows.push_back(std::move(row)); }

    // Moves the first `n` rows (at most size()) to the end of `to`.
    void takeInto(std::vector<T> &to, std::size_t n)
    {
        const auto first = m_rows.begin() + std::ptrdiff_t(m_head);
        to.reserve(to.size() + n);
        std::move(first, first + std::ptrdiff_t(n), std::back_inserter(to));
        m_head += n;
        if (m_head == m_rows.size()) {
            m_rows.clear(); // keeps its capacity
            m_head = 0;
        } else if (m_head * 2 >= m_rows.size()) {
            m_rows.erase(m_rows.begin(), m_rows.begin() + std::ptrdiff_t(m_head));
            m_head = 0;
        }
    }

private:
    std::vector<T> m_rows;
    std::size_t m_head = 0; // the rows before it are taken (moved from)
};

} // namespace sb
