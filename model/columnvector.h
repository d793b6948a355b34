// SPDX-License-Identifier: MIT
#pragma once

#include "model/memoryhint.h"

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace timesink::model {

/// The allocator of ColumnVector: value construction without arguments is left out for trivially copyable,
/// trivially destructible types, so `resize(n)` only reserves the storage.
template <typename T> struct ColumnAllocator
{
    using value_type = T;

    ColumnAllocator() = default;
    template <typename U> ColumnAllocator(const ColumnAllocator<U>& /*other*/) noexcept { }

    /// Blocks of kColumnMapFromBytes or more are mappings of their own (allocateColumnBlock): freed, their
    /// pages go back to the system at once instead of staying in malloc's heap.
    [[nodiscard]] T* allocate(std::size_t n)
    {
        if (n >= kColumnMapFromBytes / sizeof(T)) {
            if (n > std::allocator_traits<std::allocator<T>>::max_size(std::allocator<T>()))
                throw std::bad_array_new_length();
            if (void* p = allocateColumnBlock(n * sizeof(T)))
                return static_cast<T*>(p);
            throw std::bad_alloc();
        }
        return std::allocator<T>().allocate(n);
    }
    void deallocate(T* p, std::size_t n) noexcept
    {
        if (n >= kColumnMapFromBytes / sizeof(T))
            freeColumnBlock(p, n * sizeof(T));
        else
            std::allocator<T>().deallocate(p, n);
    }

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
