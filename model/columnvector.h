// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace timesink::model {

/// madvise(`advice`) over the `alignment`-aligned whole units inside [data, data + bytes): the one place the model
/// and the snapshot reader give the kernel memory advice. Advice only: when it fails, nothing else changes.
inline void adviseAlignedInterior(void* data, std::size_t bytes, std::size_t alignment, int advice)
{
#if defined(__linux__)
    auto* p = static_cast<char*>(data);
    if (p == nullptr || alignment == 0)
        return;
    const std::size_t head = (alignment - reinterpret_cast<std::uintptr_t>(p) % alignment) % alignment;
    if (bytes <= head)
        return;
    const std::size_t length = (bytes - head) / alignment * alignment;
    if (length > 0)
        (void)::madvise(p + head, length, advice);
#else
    (void)data;
    (void)bytes;
    (void)alignment;
    (void)advice;
#endif
}

/// Asks the kernel to back the 2 MiB-aligned interior of a block with transparent huge pages, for blocks that are
/// allocated at their final size and then written whole (the snapshot reader's columns).
///
/// Why: with 4 KiB pages each first touch is a page fault, and in a virtual machine a fault exits to the
/// hypervisor: reopening a 195 MB model from a snapshot took 50,000 faults, 40 % of its time. Not for blocks that
/// grow (TraceBuilder's columns): there huge pages made a 200 MB import 30 % slower and its peak 25 % higher
/// (zeroing and compacting 2 MiB at a time, slack pages made resident). The advice only applies where the system
/// allows it (`/sys/kernel/mm/transparent_hugepage/enabled` set to `madvise` or `always`); blocks below 2 MiB are
/// left alone.
inline void adviseHugePages(void* data, std::size_t bytes)
{
#if defined(MADV_HUGEPAGE)
    constexpr std::size_t kHuge = std::size_t(2) << 20;
    if (bytes >= kHuge)
        adviseAlignedInterior(data, bytes, kHuge, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

/// The allocator of ColumnVector: value construction without arguments is left out for trivially copyable,
/// trivially destructible types, so `resize(n)` only reserves the storage.
template <typename T> struct ColumnAllocator
{
    using value_type = T;

    ColumnAllocator() = default;
    template <typename U> ColumnAllocator(const ColumnAllocator<U>& /*other*/) noexcept { }

    [[nodiscard]] T* allocate(std::size_t n) { return std::allocator<T>().allocate(n); }
    void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>().deallocate(p, n); }

    template <typename U, typename... Args> void construct(U* p, Args&&... args)
    {
        if constexpr (sizeof...(Args) == 0 && std::is_trivially_copyable_v<U> && std::is_trivially_destructible_v<U>) {
            // Left as it is: the caller overwrites it (the snapshot reader decompresses straight into the
            // column). Trivially copyable types are implicit-lifetime types, so writing their bytes creates them.
            (void)p;
        } else {
            ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
        }
    }

    template <typename U> bool operator==(const ColumnAllocator<U>& /*other*/) const noexcept { return true; }
};

/// A std::vector for model columns and indexes: `resize(n)` does not zero new elements of trivially copyable
/// types (every writer of a model column sets each value: TraceBuilder with assign() or push_back(), the
/// snapshot reader by decompressing into it).
/// Use assign(n, value) where new elements must have a value.
template <typename T> using ColumnVector = std::vector<T, ColumnAllocator<T>>;

} // namespace timesink::model
