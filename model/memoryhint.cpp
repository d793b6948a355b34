// SPDX-License-Identifier: MIT
#include "model/memoryhint.h"

#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace timesink::model {

namespace {

// madvise(`advice`) over the `alignment`-aligned whole units inside [data, data + bytes).
[[maybe_unused]] void adviseAlignedInterior(void* data, std::size_t bytes, std::size_t alignment, int advice) noexcept
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

} // namespace

void prefaultForWrite(void* data, std::size_t bytes) noexcept
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    static const auto pageSize = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    adviseAlignedInterior(data, bytes, pageSize, MADV_POPULATE_WRITE);
#else
    (void)data;
    (void)bytes;
#endif
}

#if defined(__linux__) && defined(MREMAP_MAYMOVE)

namespace {
constexpr std::size_t kHugeBytes = std::size_t(2) << 20;

std::size_t pageRounded(std::size_t bytes)
{
    static const auto pageSize = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return (bytes + pageSize - 1) / pageSize * pageSize;
}
} // namespace

void* mapLarge(std::size_t bytes) noexcept
{
    bytes = pageRounded(bytes);
    // Over-map by 2 MiB and trim both ends, so the block starts on a huge-page boundary.
    void* raw = ::mmap(nullptr, bytes + kHugeBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return nullptr;
    auto* begin = static_cast<char*>(raw);
    const std::size_t head = (kHugeBytes - reinterpret_cast<std::uintptr_t>(begin) % kHugeBytes) % kHugeBytes;
    if (head > 0)
        ::munmap(begin, head);
    const std::size_t tail = kHugeBytes - head;
    if (tail > 0)
        ::munmap(begin + head + bytes, tail);
    return begin + head;
}

void* remapLarge(void* block, std::size_t oldBytes, std::size_t newBytes) noexcept
{
    oldBytes = pageRounded(oldBytes);
    newBytes = pageRounded(newBytes);
    if (newBytes == oldBytes)
        return block;
    void* p = ::mremap(block, oldBytes, newBytes, MREMAP_MAYMOVE);
    if (p == MAP_FAILED)
        return nullptr;
    return p;
}

void unmapLarge(void* block, std::size_t bytes) noexcept
{
    if (block != nullptr)
        ::munmap(block, pageRounded(bytes));
}

#if defined(TIMESINK_ADDRESS_SANITIZER)
// AddressSanitizer watches malloc blocks only: a column read past its end must stay a report there.
void* allocateColumnBlock(std::size_t bytes) noexcept
{
    return std::malloc(bytes);
}

void freeColumnBlock(void* block, std::size_t bytes) noexcept
{
    (void)bytes;
    std::free(block);
}
#else
void* allocateColumnBlock(std::size_t bytes) noexcept
{
    return mapLarge(bytes);
}

void freeColumnBlock(void* block, std::size_t bytes) noexcept
{
    unmapLarge(block, bytes);
}
#endif

#else

void* mapLarge(std::size_t bytes) noexcept
{
    return std::malloc(bytes);
}

void* remapLarge(void* block, std::size_t oldBytes, std::size_t newBytes) noexcept
{
    (void)oldBytes;
    return std::realloc(block, newBytes);
}

void unmapLarge(void* block, std::size_t bytes) noexcept
{
    (void)bytes;
    std::free(block);
}

void* allocateColumnBlock(std::size_t bytes) noexcept
{
    return std::malloc(bytes);
}

void freeColumnBlock(void* block, std::size_t bytes) noexcept
{
    (void)bytes;
    std::free(block);
}

#endif

} // namespace timesink::model
