// SPDX-License-Identifier: MIT
#pragma once

#include "model/memoryhint.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace timesink::model {

/// A growable array of trivially copyable values, for the model's largest columns: malloc/realloc while small,
/// a mapping of its own from 256 KiB (mapLarge: grown and shrunk by mremap).
///
/// Why not std::vector: growing a vector allocates the new block and copies into it, so a 128 MB column that
/// doubles briefly holds 128 + 256 MB, and shrink_to_fit copies once more. A mapped block grows and shrinks
/// without a copy, and its pages are only ever mapped once. Example:
///
///   PodBuffer<std::int64_t> values;
///   values.append(set.data(), set.size()); // amortised O(1), like push_back
///   std::span<const std::int64_t> all(values.data(), values.size());
///   values.shrinkToFit();                  // gives back the slack without copying (large blocks)
///
/// A buffer past 1 MiB maps its next 256 KiB of pages with one call before it writes them (prefaultForWrite):
/// its values are then written at memory speed instead of one page fault per 4 KiB, at a cost of at most 256 KiB
/// of resident slack per buffer.
template <typename T> class PodBuffer
{
    static_assert(std::is_trivially_copyable_v<T>, "PodBuffer moves values with memcpy/realloc");

public:
    PodBuffer() = default;
    ~PodBuffer() { release(); }
    PodBuffer(const PodBuffer&) = delete;
    PodBuffer& operator=(const PodBuffer&) = delete;
    PodBuffer(PodBuffer&& other) noexcept
        : m_data(std::exchange(other.m_data, nullptr))
        , m_size(std::exchange(other.m_size, 0))
        , m_capacity(std::exchange(other.m_capacity, 0))
        , m_writable(std::exchange(other.m_writable, 0))
        , m_mapped(std::exchange(other.m_mapped, false))
    {
    }
    PodBuffer& operator=(PodBuffer&& other) noexcept
    {
        if (this != &other) {
            release();
            m_data = std::exchange(other.m_data, nullptr);
            m_size = std::exchange(other.m_size, 0);
            m_capacity = std::exchange(other.m_capacity, 0);
            m_writable = std::exchange(other.m_writable, 0);
            m_mapped = std::exchange(other.m_mapped, false);
        }
        return *this;
    }

    [[nodiscard]] T* data() { return m_data; }
    [[nodiscard]] const T* data() const { return m_data; }
    [[nodiscard]] std::size_t size() const { return m_size; }
    [[nodiscard]] std::size_t capacity() const { return m_capacity; }
    [[nodiscard]] bool empty() const { return m_size == 0; }
    T& operator[](std::size_t i) { return m_data[i]; }
    const T& operator[](std::size_t i) const { return m_data[i]; }
    T& back() { return m_data[m_size - 1]; }
    T* begin() { return m_data; }
    T* end() { return m_data + m_size; }
    const T* begin() const { return m_data; }
    const T* end() const { return m_data + m_size; }

    void append(const T* values, std::size_t count)
    {
        if (count == 0)
            return;
        if (m_size + count > m_writable) {
            // `values` may point into this buffer (appending a copy of stored values): keep its offset.
            const std::less<const T*> before;
            const bool inside = m_data && !before(values, m_data) && before(values, m_data + m_size);
            const std::size_t offset = inside ? static_cast<std::size_t>(values - m_data) : 0;
            makeWritable(m_size + count);
            if (inside)
                values = m_data + offset;
        }
        std::memcpy(static_cast<void*>(m_data + m_size), values, count * sizeof(T));
        m_size += count;
    }
    /// Appends `count` values for the caller to write (not initialised), and returns the first.
    T* extend(std::size_t count)
    {
        if (m_size + count > m_writable)
            makeWritable(m_size + count);
        T* const first = m_data + m_size;
        m_size += count;
        return first;
    }
    void push_back(const T& value)
    {
        const T copy = value; // `value` may live in this buffer, which the reallocation below moves
        if (m_size >= m_writable)
            makeWritable(m_size + 1);
        m_data[m_size++] = copy;
    }
    void reserve(std::size_t capacity)
    {
        if (capacity > m_capacity)
            reallocate(capacity);
    }
    /// Sets the size to `size` without initialising new values: for callers that overwrite all of them at once
    /// (the snapshot reader decompresses a column straight into its buffer).
    void resizeForOverwrite(std::size_t size)
    {
        reserve(size);
        m_size = size;
    }
    void clear() { m_size = 0; }
    /// Drops the values from `size` on (a no-op when there are not that many): for writers that extend() by the
    /// most they might write and keep what they wrote.
    void truncate(std::size_t size) { m_size = std::min(m_size, size); }
    void shrinkToFit()
    {
        if (m_size == m_capacity)
            return;
        if (m_size == 0) {
            release();
            m_data = nullptr;
            m_capacity = 0;
            m_writable = 0;
            m_mapped = false;
            return;
        }
        reallocate(m_size);
    }

private:
    static constexpr std::size_t kPrefaultFromBytes = std::size_t(1) << 20;
    static constexpr std::size_t kPrefaultBytes = std::size_t(256) << 10;
    static constexpr std::size_t kMapFromBytes = std::size_t(256) << 10;

    // Room for `needed` values, and the pages ahead of the written ones mapped in one call for large buffers.
    void makeWritable(std::size_t needed)
    {
        if (needed > m_capacity)
            reallocate(std::max({needed, m_capacity * 2, std::size_t(16)}));
        const std::size_t capacityBytes = m_capacity * sizeof(T);
        if (capacityBytes < kPrefaultFromBytes) {
            m_writable = m_capacity;
            return;
        }
        const std::size_t from = m_size * sizeof(T);
        const std::size_t to = std::min(capacityBytes, std::max(needed * sizeof(T), from + kPrefaultBytes));
        prefaultForWrite(static_cast<char*>(static_cast<void*>(m_data)) + from, to - from);
        m_writable = std::max(needed, to / sizeof(T));
    }
    // Blocks from kMapFromBytes get a mapping of their own (mapLarge): growth without copies. Below it realloc copies
    // each doubling into fresh pages; from 4 MiB, as it once was, that was ~3,000 page faults of the 1 GB torch_npu
    // import's sink thread.
    void reallocate(std::size_t capacity)
    {
        const std::size_t bytes = capacity * sizeof(T);
        void* p = nullptr;
        if (m_mapped) {
            p = remapLarge(m_data, m_capacity * sizeof(T), bytes);
        } else if (bytes >= kMapFromBytes) {
            p = mapLarge(bytes);
            if (p) {
                if (m_size > 0)
                    std::memcpy(p, static_cast<const void*>(m_data), m_size * sizeof(T));
                std::free(m_data);
                m_mapped = true;
            }
        } else {
            p = std::realloc(static_cast<void*>(m_data), bytes);
        }
        if (!p)
            throw std::bad_alloc();
        m_data = static_cast<T*>(p);
        m_capacity = capacity;
        m_writable = std::min(m_size, m_capacity); // a moved block's pages past the values are fresh again
    }
    void release() noexcept
    {
        if (m_mapped)
            unmapLarge(m_data, m_capacity * sizeof(T));
        else
            std::free(m_data);
    }

    T* m_data = nullptr;
    std::size_t m_size = 0;
    std::size_t m_capacity = 0;
    std::size_t m_writable = 0; // values up to here need no reallocation, and their pages are mapped
    bool m_mapped = false;      // m_data is a mapLarge() block, not a malloc one
};

} // namespace timesink::model
